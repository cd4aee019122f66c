-- Integer message and queued-message ids (docs/api.md "Ids"), as Coder's clients expect (int64).
--
-- chat_messages: `seq` (one global bigserial, insertion order) becomes the id, so ordering by id
-- is ordering by insertion and existing rows keep their order; the uuid id is dropped.
-- chat_queued_messages: a new sequence of its own numbers existing rows in the order they were
-- queued. chat_messages.queued_message_id follows its queue row's new id where that row still
-- exists, and is NULL where it does not. Promotion deletes the queue row in the transaction that
-- inserts the message (exactly one row, or the transition fails), so a committed message's queue
-- row never still exists: the id only let a client match the promoted message to the queue entry
-- it held, and that entry left the queue (queue_update) in the same commit. The spec reads a
-- missing queued_message_id as "unknown", and no server code reads the column back.
--
-- No UPDATE touches chat_messages (its revision trigger would move history_version and reset
-- generation_attempt): the queued_message_id mapping is an ALTER ... USING, a table rewrite.
-- The queue UPDATE writes only the new column, which none of the queue_version triggers watch.

-- 1. Number the queue rows: oldest first, then by chat and position.
ALTER TABLE "chat_queued_messages" ADD COLUMN "new_id" bigint;--> statement-breakpoint
UPDATE "chat_queued_messages" q
SET "new_id" = numbered.n
FROM (
  SELECT "id", row_number() OVER (ORDER BY "created_at", "chat_id", "position", "id") AS n
  FROM "chat_queued_messages"
) numbered
WHERE q."id" = numbered."id";--> statement-breakpoint

-- 2. Map queued_message_id to the new queue ids (NULL when the queue row is gone).
CREATE FUNCTION "chat_queued_message_new_id_0021"(old uuid) RETURNS bigint
LANGUAGE sql STABLE AS $$ SELECT "new_id" FROM "chat_queued_messages" WHERE "id" = old $$;--> statement-breakpoint
ALTER TABLE "chat_messages" ALTER COLUMN "queued_message_id" SET DATA TYPE bigint
  USING "chat_queued_message_new_id_0021"("queued_message_id");--> statement-breakpoint
DROP FUNCTION "chat_queued_message_new_id_0021"(uuid);--> statement-breakpoint

-- 3. The queue's new id column becomes its primary key, fed by its own sequence.
ALTER TABLE "chat_queued_messages" DROP CONSTRAINT "chat_queued_messages_pkey";--> statement-breakpoint
ALTER TABLE "chat_queued_messages" DROP COLUMN "id";--> statement-breakpoint
ALTER TABLE "chat_queued_messages" RENAME COLUMN "new_id" TO "id";--> statement-breakpoint
CREATE SEQUENCE "chat_queued_messages_id_seq" AS bigint OWNED BY "chat_queued_messages"."id";--> statement-breakpoint
SELECT setval('chat_queued_messages_id_seq', coalesce(max("id"), 0) + 1, false) FROM "chat_queued_messages";--> statement-breakpoint
ALTER TABLE "chat_queued_messages" ALTER COLUMN "id" SET DEFAULT nextval('chat_queued_messages_id_seq');--> statement-breakpoint
ALTER TABLE "chat_queued_messages" ALTER COLUMN "id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_queued_messages" ADD CONSTRAINT "chat_queued_messages_pkey" PRIMARY KEY ("id");--> statement-breakpoint

-- 4. chat_messages: seq becomes the id (its sequence and its indexes follow the rename).
ALTER TABLE "chat_messages" DROP CONSTRAINT "chat_messages_pkey";--> statement-breakpoint
ALTER TABLE "chat_messages" DROP COLUMN "id";--> statement-breakpoint
ALTER TABLE "chat_messages" RENAME COLUMN "seq" TO "id";--> statement-breakpoint
ALTER SEQUENCE "chat_messages_seq_seq" RENAME TO "chat_messages_id_seq";--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_pkey" PRIMARY KEY ("id");--> statement-breakpoint
ALTER INDEX "chat_messages_chat_id_seq_idx" RENAME TO "chat_messages_chat_id_id_idx";
