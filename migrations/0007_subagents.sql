-- Personal subagent model overrides (spec "Reasoning effort", subagent precedence step 2): one row
-- per (user, organization, subagent context). The composite foreign key binds the config to the
-- row's own organization, so another organization's model cannot be stored.
CREATE TABLE "chat_user_model_overrides" (
	"user_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"context" text NOT NULL,
	"mode" text NOT NULL,
	"model_config_id" uuid,
	"reasoning_effort" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_user_model_overrides_pk" PRIMARY KEY ("user_id", "organization_id", "context"),
	CONSTRAINT "chat_user_model_overrides_context_check" CHECK ("chat_user_model_overrides"."context" IN ('general', 'explore')),
	CONSTRAINT "chat_user_model_overrides_mode_check" CHECK ("chat_user_model_overrides"."mode" IN ('chat_default', 'model', 'deployment_default')),
	-- Only mode 'model' names a model (and may name an effort).
	CONSTRAINT "chat_user_model_overrides_model_check" CHECK (("chat_user_model_overrides"."mode" = 'model') = ("chat_user_model_overrides"."model_config_id" IS NOT NULL)),
	CONSTRAINT "chat_user_model_overrides_effort_check" CHECK ("chat_user_model_overrides"."reasoning_effort" IS NULL OR ("chat_user_model_overrides"."mode" = 'model' AND "chat_user_model_overrides"."reasoning_effort" IN ('none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max')))
);--> statement-breakpoint
ALTER TABLE "chat_user_model_overrides" ADD CONSTRAINT "chat_user_model_overrides_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_user_model_overrides" ADD CONSTRAINT "chat_user_model_overrides_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_user_model_overrides" ADD CONSTRAINT "chat_user_model_overrides_config_fk" FOREIGN KEY ("organization_id", "model_config_id") REFERENCES "public"."chat_model_configs"("organization_id", "id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_user_model_overrides_config_idx" ON "chat_user_model_overrides" USING btree ("organization_id", "model_config_id");
