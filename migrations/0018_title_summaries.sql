-- Background generation (docs/titles.md): a title call starts when the first prompt exists and is
-- counted, so the cron can retry a chat left without a title (a crash) a bounded number of times;
-- the chat's summary and its turn status label are written after each turn, the history_version
-- they were made from keeping a late call from replacing a newer summary.
ALTER TABLE "chats" ADD COLUMN "title_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chats" ADD COLUMN "title_attempted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "chats" ADD COLUMN "summary" text;--> statement-breakpoint
ALTER TABLE "chats" ADD COLUMN "last_turn_summary" text;--> statement-breakpoint
ALTER TABLE "chats" ADD COLUMN "summary_updated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "chats" ADD COLUMN "summary_history_version" bigint;--> statement-breakpoint
CREATE INDEX "chats_fallback_title_roots_idx" ON "chats" USING btree ("created_at") WHERE "chats"."parent_chat_id" IS NULL AND "chats"."title_source" = 'fallback';
