CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"hashed_secret" text NOT NULL,
	"token_name" text NOT NULL,
	"login_type" text NOT NULL,
	"scope" text DEFAULT 'all' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "organization_members" (
	"organization_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"role" text DEFAULT 'member' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "organization_members_organization_id_user_id_pk" PRIMARY KEY("organization_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "organizations_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"username" text NOT NULL,
	"password_hash" text,
	"site_roles" text[] DEFAULT '{}'::text[] NOT NULL,
	"login_type" text DEFAULT 'password' NOT NULL,
	"suspended" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_email_unique" UNIQUE("email"),
	CONSTRAINT "users_username_unique" UNIQUE("username")
);
--> statement-breakpoint
CREATE TABLE "chat_model_configs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"provider_id" uuid NOT NULL,
	"model" text NOT NULL,
	"display_name" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"context_limit" integer,
	"compression_threshold" integer,
	"options" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_providers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"type" text NOT NULL,
	"name" text NOT NULL,
	"base_url" text,
	"api_key" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_providers_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "chat_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seq" bigserial NOT NULL,
	"chat_id" uuid NOT NULL,
	"role" text NOT NULL,
	"content" jsonb NOT NULL,
	"revision" bigint,
	"queued_message_id" uuid,
	"model_config_id" uuid,
	"reasoning_effort" text,
	"created_by" uuid,
	"deleted" boolean DEFAULT false NOT NULL,
	"model_only" boolean DEFAULT false NOT NULL,
	"compressed" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_messages_role_check" CHECK ("chat_messages"."role" IN ('system', 'user', 'assistant', 'tool')),
	CONSTRAINT "chat_messages_content_is_array" CHECK (jsonb_typeof("chat_messages"."content") = 'array')
);
--> statement-breakpoint
CREATE TABLE "chat_queued_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chat_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"content" jsonb NOT NULL,
	"model_config_id" uuid,
	"reasoning_effort" text,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_queued_messages_position_check" CHECK ("chat_queued_messages"."position" >= 0),
	CONSTRAINT "chat_queued_messages_content_is_array" CHECK (jsonb_typeof("chat_queued_messages"."content") = 'array')
);
--> statement-breakpoint
CREATE TABLE "chats" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"owner_id" uuid NOT NULL,
	"parent_chat_id" uuid,
	"root_chat_id" uuid,
	"status" text NOT NULL,
	"archived" boolean DEFAULT false NOT NULL,
	"worker_id" uuid,
	"runner_id" uuid,
	"last_error" text,
	"retry_state" jsonb,
	"snapshot_version" bigint DEFAULT 0 NOT NULL,
	"history_version" bigint DEFAULT 0 NOT NULL,
	"queue_version" bigint DEFAULT 0 NOT NULL,
	"generation_attempt" bigint DEFAULT 0 NOT NULL,
	"retry_state_version" bigint DEFAULT 0 NOT NULL,
	"requires_action_deadline_at" timestamp with time zone,
	"compaction_requested_at" timestamp with time zone,
	"title" text NOT NULL,
	"title_source" text NOT NULL,
	"title_updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"labels" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"pin_order" integer DEFAULT 0 NOT NULL,
	"last_model_config_id" uuid,
	"last_reasoning_effort" text,
	"project_id" uuid,
	"system_prompt" text,
	"unsafe_dynamic_tools" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chats_status_check" CHECK ("chats"."status" IN ('waiting', 'running', 'interrupting', 'requires_action', 'error')),
	CONSTRAINT "chats_title_source_check" CHECK ("chats"."title_source" IN ('fallback', 'generated', 'user'))
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organization_members" ADD CONSTRAINT "organization_members_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organization_members" ADD CONSTRAINT "organization_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_model_configs" ADD CONSTRAINT "chat_model_configs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_model_configs" ADD CONSTRAINT "chat_model_configs_provider_id_chat_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."chat_providers"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_chat_id_chats_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."chats"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_queued_messages" ADD CONSTRAINT "chat_queued_messages_chat_id_chats_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."chats"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chats" ADD CONSTRAINT "chats_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chats" ADD CONSTRAINT "chats_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chats" ADD CONSTRAINT "chats_parent_chat_id_chats_id_fk" FOREIGN KEY ("parent_chat_id") REFERENCES "public"."chats"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chats" ADD CONSTRAINT "chats_root_chat_id_chats_id_fk" FOREIGN KEY ("root_chat_id") REFERENCES "public"."chats"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_user_token_name_idx" ON "api_keys" USING btree ("user_id","token_name") WHERE "api_keys"."login_type" = 'token';--> statement-breakpoint
CREATE INDEX "api_keys_user_id_idx" ON "api_keys" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "chat_model_configs_one_default_idx" ON "chat_model_configs" USING btree ("organization_id") WHERE "chat_model_configs"."is_default" AND "chat_model_configs"."deleted_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "chat_messages_chat_id_seq_idx" ON "chat_messages" USING btree ("chat_id","seq");--> statement-breakpoint
CREATE INDEX "chat_messages_active_idx" ON "chat_messages" USING btree ("chat_id","role","seq") WHERE NOT "chat_messages"."deleted";--> statement-breakpoint
CREATE INDEX "chats_status_worker_id_idx" ON "chats" USING btree ("status","worker_id");--> statement-breakpoint
CREATE INDEX "chats_owner_id_created_at_idx" ON "chats" USING btree ("owner_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "chats_root_chat_id_idx" ON "chats" USING btree ("root_chat_id");--> statement-breakpoint
CREATE INDEX "chats_parent_chat_id_idx" ON "chats" USING btree ("parent_chat_id");