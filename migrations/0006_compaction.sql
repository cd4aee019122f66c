-- Compaction (automatic and manual): what each assistant step cost, the owner's personal
-- threshold, and the organization's compaction model override.

-- The provider's usage figures for an assistant step ({input_tokens, output_tokens, ...});
-- the automatic compaction trigger reads the prompt size (input_tokens) of the latest step.
ALTER TABLE "chat_messages" ADD COLUMN "usage" jsonb;--> statement-breakpoint

CREATE TABLE "chat_user_preferences" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"compaction_threshold_percent" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_user_preferences_compaction_threshold_percent_check" CHECK ("chat_user_preferences"."compaction_threshold_percent" BETWEEN 0 AND 100)
);--> statement-breakpoint
ALTER TABLE "chat_user_preferences" ADD CONSTRAINT "chat_user_preferences_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint

-- The target of the overrides' composite foreign key: a config together with its organization.
ALTER TABLE "chat_model_configs" ADD CONSTRAINT "chat_model_configs_organization_id_id_unique" UNIQUE ("organization_id", "id");--> statement-breakpoint

CREATE TABLE "chat_organization_model_overrides" (
	"organization_id" uuid NOT NULL,
	"context" text NOT NULL,
	"model_config_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_organization_model_overrides_organization_id_context_pk" PRIMARY KEY ("organization_id", "context"),
	CONSTRAINT "chat_organization_model_overrides_context_check" CHECK ("chat_organization_model_overrides"."context" IN ('compaction', 'general', 'explore'))
);--> statement-breakpoint
ALTER TABLE "chat_organization_model_overrides" ADD CONSTRAINT "chat_organization_model_overrides_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Binds the config to the override's own organization: another organization's config cannot be stored.
ALTER TABLE "chat_organization_model_overrides" ADD CONSTRAINT "chat_organization_model_overrides_config_fk" FOREIGN KEY ("organization_id", "model_config_id") REFERENCES "public"."chat_model_configs"("organization_id", "id") ON DELETE cascade ON UPDATE no action;
