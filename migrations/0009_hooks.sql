-- Lifecycle hooks (docs/hooks.md): the context a user_prompt_submit hook returned for a prompt that
-- was queued. The prompt is evaluated once, at submission; its context waits with it and enters
-- history right after it when it is promoted. Null: no context.
ALTER TABLE "chat_queued_messages" ADD COLUMN "hook_context" jsonb;--> statement-breakpoint
ALTER TABLE "chat_queued_messages" ADD CONSTRAINT "chat_queued_messages_hook_context_is_array" CHECK ("chat_queued_messages"."hook_context" IS NULL OR jsonb_typeof("chat_queued_messages"."hook_context") = 'array');
