-- What drizzle cannot declare.
--
-- chat_heartbeats exactly as the spec's "Heartbeat loop" writes it: UNLOGGED, because a lease is
-- worthless after a crash anyway (a restarted Postgres empties it and every chat becomes
-- acquirable, which is the takeover the acquisition loop performs for stale leases).
CREATE UNLOGGED TABLE chat_heartbeats (
    chat_id uuid NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    runner_id uuid NOT NULL,
    heartbeat_at timestamp with time zone NOT NULL,
    PRIMARY KEY (chat_id, runner_id)
);
--> statement-breakpoint
CREATE INDEX chat_heartbeats_heartbeat_at_idx
    ON chat_heartbeats (heartbeat_at);
--> statement-breakpoint
-- Queue positions are contiguous 0..n-1 per chat. Removing or reordering a row shifts its
-- neighbours in the same statement, so uniqueness is checked at the end of the statement
-- (DEFERRABLE INITIALLY IMMEDIATE), not row by row.
ALTER TABLE chat_queued_messages
    ADD CONSTRAINT chat_queued_messages_chat_id_position_key
    UNIQUE (chat_id, position) DEFERRABLE INITIALLY IMMEDIATE;
