/**
 * Uploaded files: bytes in R2 (`FILES`), metadata here. A file belongs to at most one chat; the
 * link is written inside the transition that persists the message referencing it (spec: "File
 * links are metadata, but they are written inside transitions").
 */
import { sql } from "drizzle-orm";
import { bigint, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { organizations, users } from "./auth";

export const chatFiles = pgTable(
  "chat_files",
  {
    id: uuid().primaryKey().defaultRandom(),
    organizationId: uuid()
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    ownerId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The chat holding the file; null until a message references it. No FK: a chat's rows are written only by transitions. */
    chatId: uuid(),
    name: text().notNull(),
    mediaType: text().notNull(),
    sizeBytes: bigint({ mode: "number" }).notNull(),
    /** The object's key in the FILES bucket. */
    storageKey: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("chat_files_chat_id_created_at_idx").on(t.chatId, t.createdAt),
    index("chat_files_owner_id_idx").on(t.ownerId),
    // The organization's upload quota (migration 0016).
    index("chat_files_organization_id_idx").on(t.organizationId),
    // The cron's purge of uploads no message attached (migration 0016).
    index("chat_files_unattached_created_at_idx").on(t.createdAt).where(sql`${t.chatId} IS NULL`),
  ],
);

export type ChatFileRow = typeof chatFiles.$inferSelect;
