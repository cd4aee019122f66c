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
-- missing queued_message_id as "unknown", and the server only forwards the column to clients.
--
-- Nothing rewrites chat_messages (the history, the largest table): the new queued_message_id
-- column starts NULL, and only the rows whose queue row still exists (none, by the above) are
-- updated, with the revision trigger off for that statement: it would move their chats'
-- history_version and reset generation_attempt. Dropping columns and renaming are catalog
-- changes; the new primary key index is the one scan of the table. The queue UPDATE writes only
-- the new column, which none of the queue_version triggers watch.

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
ALTER TABLE "chat_messages" ADD COLUMN "new_queued_message_id" bigint;--> statement-breakpoint
ALTER TABLE "chat_messages" DISABLE TRIGGER "trigger_set_chat_message_revision_on_update";--> statement-breakpoint
UPDATE "chat_messages" m
SET "new_queued_message_id" = q."new_id"
FROM "chat_queued_messages" q
WHERE m."queued_message_id" = q."id";--> statement-breakpoint
ALTER TABLE "chat_messages" ENABLE TRIGGER "trigger_set_chat_message_revision_on_update";--> statement-breakpoint
ALTER TABLE "chat_messages" DROP COLUMN "queued_message_id";--> statement-breakpoint
ALTER TABLE "chat_messages" RENAME COLUMN "new_queued_message_id" TO "queued_message_id";--> statement-breakpoint

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
