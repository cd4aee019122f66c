/**
 * Chats as Coder's `Chat` shows them: each with `has_unread` (an assistant message past the
 * owner's read marker) and, for a root, its subagent children, one level deep as subagents are
 * (docs/subagents.md). One statement reads the chats, their children and every unread flag.
 */
import { chatFromRaw, type Queryable } from "../db/rows";
import type { ChatRow } from "../db/schema/chats";

export interface ChatView {
  chat: ChatRow;
  hasUnread: boolean;
  /** Direct children, newest first; a child's own children are never listed (there are none). */
  children: { chat: ChatRow; hasUnread: boolean }[];
}

/** A shown assistant message newer than the owner's read marker, of the chat aliased `c` (chat_messages_active_idx answers it). */
export const HAS_UNREAD_SQL = `EXISTS (
  SELECT 1 FROM chat_messages m
   WHERE m.chat_id = c.id AND m.role = 'assistant' AND NOT m.deleted AND NOT m.model_only AND m.id > c.last_read_message_id)`;

const VIEWS_SQL = `
SELECT c.*, ${HAS_UNREAD_SQL} AS has_unread
  FROM chats c
 WHERE c.id = ANY($1::uuid[]) OR c.parent_chat_id = ANY($1::uuid[])
 ORDER BY c.created_at DESC, c.id DESC`;

/** The chats named (in that order; a missing one is left out), with their flags and children. */
export async function readChatViews(db: Queryable, chatIds: readonly string[]): Promise<ChatView[]> {
  if (chatIds.length === 0) return [];
  const { rows } = await db.query(VIEWS_SQL, [chatIds]);
  const read = rows.map((raw) => ({ chat: chatFromRaw(raw), hasUnread: raw.has_unread === true }));
  const byId = new Map(read.map((r) => [r.chat.id, r]));
  const views: ChatView[] = [];
  for (const id of chatIds) {
    const found = byId.get(id);
    if (found === undefined) continue;
    views.push({ ...found, children: read.filter((r) => r.chat.parentChatId === id) });
  }
  return views;
}

/** One chat's view; undefined when it does not exist. */
export async function readChatView(db: Queryable, chatId: string): Promise<ChatView | undefined> {
  return (await readChatViews(db, [chatId]))[0];
}

/**
 * Advances the owner's read marker to the chat's newest message (never backwards): the owner
 * opened or closed the chat's stream, as Coder moves its read cursor. A metadata write: no
 * transition, no version. Answers the owner when the marker moved, so their list watch can hear
 * that `has_unread` changed (nothing else it polls moves with it).
 */
export async function markChatRead(db: Queryable, chatId: string): Promise<{ ownerId: string } | null> {
  const { rows } = await db.query(
    `UPDATE chats c SET last_read_message_id = newest.id
       FROM (SELECT max(id) AS id FROM chat_messages WHERE chat_id = $1) newest
      WHERE c.id = $1 AND newest.id > c.last_read_message_id
      RETURNING c.owner_id`,
    [chatId],
  );
  return rows[0] ? { ownerId: String(rows[0].owner_id) } : null;
}
