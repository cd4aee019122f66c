/**
 * `chat_heartbeats` for queries only. The table is created by migrations/0002_heartbeats_queue.sql
 * exactly as the spec writes it (`CREATE UNLOGGED TABLE`), which drizzle cannot express, so this
 * file is deliberately not re-exported from ./index.ts: drizzle-kit never generates it.
 */
import { index, pgTable, primaryKey, timestamp, uuid } from "drizzle-orm/pg-core";
import { chats } from "./chats";

export const chatHeartbeats = pgTable(
  "chat_heartbeats",
  {
    chatId: uuid()
      .notNull()
      .references(() => chats.id, { onDelete: "cascade" }),
    runnerId: uuid().notNull(),
    heartbeatAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.chatId, t.runnerId] }), index("chat_heartbeats_heartbeat_at_idx").on(t.heartbeatAt)],
);

export type ChatHeartbeatRow = typeof chatHeartbeats.$inferSelect;
