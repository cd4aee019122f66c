-- Debug runs (docs/debug-runs.md): the owner's per-chat flag, and one row per HTTP request a chat's
-- model call sent, redacted and size-capped, bounded per chat and purged by the cron after
-- CHAT_DEBUG_RUN_RETENTION_HOURS.
CREATE TABLE "chat_debug_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chat_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"trace_id" text,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"model_config_id" uuid,
	"transport" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"status" integer,
	"error" text,
	"request" jsonb NOT NULL,
	"response" jsonb,
	"outcome" jsonb,
	"bytes" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_debug_runs_kind_check" CHECK ("chat_debug_runs"."kind" IN ('step', 'compaction', 'title'))
);
--> statement-breakpoint
ALTER TABLE "chats" ADD COLUMN "debug_runs" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_debug_runs" ADD CONSTRAINT "chat_debug_runs_chat_id_chats_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."chats"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_debug_runs_chat_id_created_at_idx" ON "chat_debug_runs" USING btree ("chat_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "chat_debug_runs_created_at_idx" ON "chat_debug_runs" USING btree ("created_at");
