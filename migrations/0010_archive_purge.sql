-- Auto-archive and purge (docs/retention.md): when a chat was archived, and the indexes the
-- cron's candidate reads use.

-- Set by the trigger below whenever `archived` turns true, cleared when it turns false, so every
-- path that archives (the family PATCH, a child alone, the auto-archive loop) stamps it alike.
-- The retention purge counts from it.
ALTER TABLE "chats" ADD COLUMN "archived_at" timestamp with time zone;--> statement-breakpoint
-- Chats archived before this column existed: their last update is the best estimate we have.
UPDATE "chats" SET "archived_at" = "updated_at" WHERE "archived";--> statement-breakpoint

CREATE FUNCTION stamp_chat_archived_at()
RETURNS trigger AS $$
BEGIN
  IF NEW.archived AND (TG_OP = 'INSERT' OR NOT OLD.archived) THEN
    NEW.archived_at = now();
  ELSIF NOT NEW.archived THEN
    NEW.archived_at = NULL;
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER trigger_stamp_chat_archived_at
BEFORE INSERT OR UPDATE OF archived ON chats
FOR EACH ROW
EXECUTE FUNCTION stamp_chat_archived_at();
--> statement-breakpoint

-- The auto-archive candidate read: unarchived, unpinned root chats, oldest first.
CREATE INDEX "chats_auto_archive_candidates_idx" ON "chats" USING btree ("created_at","id") WHERE "parent_chat_id" IS NULL AND NOT "archived" AND "pin_order" = 0;--> statement-breakpoint
-- The retention purge's read: archived root chats by the time they were archived.
CREATE INDEX "chats_archived_roots_idx" ON "chats" USING btree ("archived_at","id") WHERE "parent_chat_id" IS NULL AND "archived";--> statement-breakpoint
-- "The newest non-deleted message in its family": per chat, by time.
CREATE INDEX "chat_messages_chat_id_created_at_idx" ON "chat_messages" USING btree ("chat_id","created_at") WHERE NOT "deleted";--> statement-breakpoint
-- The purge of long-expired synthetic attribution keys.
CREATE INDEX "api_keys_attribution_expires_at_idx" ON "api_keys" USING btree ("expires_at") WHERE "scope" = 'chatd:attribution';
