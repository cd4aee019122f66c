-- Usage and cost (docs/usage-cost.md): a model config's prices, integer micro-dollars per million
-- tokens (input and output both or neither; cached input and reasoning beside them), and each
-- assistant step's exact cost in dollars, priced when it is committed. The indexes serve a chat's,
-- a user's and an organization's usage over a time range.
ALTER TABLE "chat_model_configs" ADD COLUMN "input_price_micros" bigint;--> statement-breakpoint
ALTER TABLE "chat_model_configs" ADD COLUMN "output_price_micros" bigint;--> statement-breakpoint
ALTER TABLE "chat_model_configs" ADD COLUMN "cached_input_price_micros" bigint;--> statement-breakpoint
ALTER TABLE "chat_model_configs" ADD COLUMN "reasoning_price_micros" bigint;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "cost_usd" numeric;--> statement-breakpoint
CREATE INDEX "chat_messages_usage_idx" ON "chat_messages" USING btree ("chat_id","created_at") WHERE "chat_messages"."usage" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "chats_organization_id_idx" ON "chats" USING btree ("organization_id");--> statement-breakpoint
ALTER TABLE "chat_model_configs" ADD CONSTRAINT "chat_model_configs_priced_check" CHECK (("chat_model_configs"."input_price_micros" IS NULL) = ("chat_model_configs"."output_price_micros" IS NULL));--> statement-breakpoint
ALTER TABLE "chat_model_configs" ADD CONSTRAINT "chat_model_configs_price_extras_check" CHECK ("chat_model_configs"."input_price_micros" IS NOT NULL OR ("chat_model_configs"."cached_input_price_micros" IS NULL AND "chat_model_configs"."reasoning_price_micros" IS NULL));--> statement-breakpoint
ALTER TABLE "chat_model_configs" ADD CONSTRAINT "chat_model_configs_input_price_check" CHECK ("chat_model_configs"."input_price_micros" BETWEEN 0 AND 10000000000);--> statement-breakpoint
ALTER TABLE "chat_model_configs" ADD CONSTRAINT "chat_model_configs_output_price_check" CHECK ("chat_model_configs"."output_price_micros" BETWEEN 0 AND 10000000000);--> statement-breakpoint
ALTER TABLE "chat_model_configs" ADD CONSTRAINT "chat_model_configs_cached_input_price_check" CHECK ("chat_model_configs"."cached_input_price_micros" BETWEEN 0 AND 10000000000);--> statement-breakpoint
ALTER TABLE "chat_model_configs" ADD CONSTRAINT "chat_model_configs_reasoning_price_check" CHECK ("chat_model_configs"."reasoning_price_micros" BETWEEN 0 AND 10000000000);--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_cost_usd_check" CHECK ("chat_messages"."cost_usd" >= 0);
