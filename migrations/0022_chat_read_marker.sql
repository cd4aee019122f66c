-- Coder's Chat fields (docs/api.md "Chat"): client_type, where the chat was created ('ui' or 'api'),
-- and the owner's read marker, the id of the newest message when the owner last opened or closed
-- the chat's stream; an assistant message past it makes the chat unread (has_unread). Existing chats
-- are 'api' and start read: their marker is their newest message, so an upgrade marks nothing unread.
-- The backfill is one pass over chat_messages and one write per chat that has messages; nothing
-- rewrites the history table, and the new columns are catalog-only (constant defaults).
ALTER TABLE "chats" ADD COLUMN "client_type" text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE "chats" ADD COLUMN "last_read_message_id" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chats" ADD CONSTRAINT "chats_client_type_check" CHECK ("chats"."client_type" IN ('ui', 'api'));--> statement-breakpoint
UPDATE "chats" c SET "last_read_message_id" = "newest"."id"
  FROM (SELECT "chat_id", max("id") AS "id" FROM "chat_messages" GROUP BY "chat_id") AS "newest"
 WHERE "newest"."chat_id" = c."id";
