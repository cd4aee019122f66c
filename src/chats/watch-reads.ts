/**
 * The chat list watch's reads (src/watch/watch-feed.ts): the chats a notification names, the ones
 * that changed since the catch-up poll's cursor, and which chats already sent still exist. Each is
 * limited to what GET /chats lists for the user (`listableBy`), so a watcher never hears of a chat
 * it could not list.
 */
import type { Queryable } from "../db/rows";
import { chatToWire, type ChatWire } from "../wire/chat-wire";
import { readChatViews } from "./chat-views";
import { listableBy } from "./queries";

/** When a chat last changed as a list shows it: a transition or PATCH (updated_at), a title, a summary. */
const CHANGED_AT = "GREATEST(c.updated_at, c.title_updated_at, COALESCE(c.summary_updated_at, c.updated_at))";

export async function watchedChats(db: Queryable, userId: string, ids: readonly string[]): Promise<ChatWire[]> {
  if (ids.length === 0) return [];
  return asListed(db, [...(await presentChats(db, userId, ids))]);
}

export async function changedChats(
  db: Queryable,
  userId: string,
  since: Date,
  limit: number,
): Promise<{ chats: ChatWire[]; readAt: Date; lastChangedAt: Date | null }> {
  const { rows } = await db.query(
    `SELECT c.id, ${CHANGED_AT} AS watch_changed_at, clock_timestamp() AS watch_read_at FROM chats c
     WHERE ${listableBy("$1").join(" AND ")} AND ${CHANGED_AT} > $2
     ORDER BY watch_changed_at, c.id LIMIT $3`,
    [userId, since, limit],
  );
  const last = rows.at(-1);
  return {
    chats: await asListed(
      db,
      rows.map((row) => String(row.id)),
    ),
    readAt: rows[0] ? new Date(rows[0].watch_read_at as string | Date) : await databaseNow(db),
    lastChangedAt: last ? new Date(last.watch_changed_at as string | Date) : null,
  };
}

export async function presentChats(db: Queryable, userId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await db.query(`SELECT c.id FROM chats c WHERE ${listableBy("$1").join(" AND ")} AND c.id = ANY($2::uuid[])`, [
    userId,
    [...ids],
  ]);
  return new Set(rows.map((row) => String(row.id)));
}

/**
 * The chats as GET /chats lists them (with has_unread and children), in the order given: a second
 * statement after the one that chose them, since the watch is read far less often than it is told.
 */
async function asListed(db: Queryable, ids: readonly string[]): Promise<ChatWire[]> {
  return (await readChatViews(db, ids)).map((view) => chatToWire(view.chat, view));
}

async function databaseNow(db: Queryable): Promise<Date> {
  const { rows } = await db.query("SELECT clock_timestamp() AS now");
  return new Date(rows[0]?.now as string | Date);
}
