/**
 * Reads for the API and the worker. None of them locks or writes execution state; a read that
 * must be consistent with a transition belongs inside `ChatStore.update` instead.
 */
import { chatFromRaw, messageFromRaw, queuedFromRaw, type Queryable } from "../db/rows";
import { HAS_UNREAD_SQL } from "./chat-views";
import type { ChatMessageRow, ChatQueuedMessageRow, ChatRow } from "../db/schema/chats";

export async function getChat(db: Queryable, chatId: string): Promise<ChatRow | undefined> {
  const { rows } = await db.query(`SELECT * FROM chats WHERE id = $1`, [chatId]);
  return rows[0] === undefined ? undefined : chatFromRaw(rows[0]);
}

/** The columns of a chat that never change after Create, and its snapshot version. */
export interface ChatIdentity {
  organizationId: string;
  ownerId: string;
  parentChatId: string | null;
  snapshotVersion: number;
}

/**
 * What a command checks before its transaction (the owner, the organization for model and file
 * checks, the family for hooks): organization, owner and parent never change, so reading them
 * outside the transaction is safe. Undefined when the chat does not exist.
 */
export async function readChatIdentity(db: Queryable, chatId: string): Promise<ChatIdentity | undefined> {
  const { rows } = await db.query(`SELECT organization_id, owner_id, parent_chat_id, snapshot_version FROM chats WHERE id = $1`, [chatId]);
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    organizationId: String(row.organization_id),
    ownerId: String(row.owner_id),
    parentChatId: row.parent_chat_id === null ? null : String(row.parent_chat_id),
    snapshotVersion: Number(row.snapshot_version),
  };
}

export interface ListChatsOptions {
  ownerId: string;
  archived?: boolean;
  /** Only chats with (true) or without (false) a reply past the owner's read marker (chat-views.ts). */
  hasUnread?: boolean;
  /** Only this chat's direct children (subagents). */
  parentChatId?: string;
  /** Chats whose labels contain every one of these pairs. */
  labels?: Record<string, string>;
  /** Words that must each appear in the title, case-insensitively (the search's free text). */
  titleWords?: readonly string[];
  limit?: number;
  /** Keyset pagination: chats created before this one (newest first). */
  afterId?: string;
  /** Rows of the ordered list to skip (after `afterId`, when both are given). */
  offset?: number;
}

/** The most rows `offset` may skip: a deeper page costs a scan of every row before it. */
export const LIST_CHATS_MAX_OFFSET = 10_000;

/**
 * The owner's chats in the organizations they still belong to, newest first (`created_at DESC,
 * id DESC`): a member removed from an organization no longer sees its chats.
 */
/**
 * Which chats a user can list: their own, in an organization they still belong to. GET /chats and
 * the chat list watch (src/chats/watch-reads.ts) share it, so a watcher hears of exactly the chats
 * its list shows. `user` is the placeholder of the user's id.
 */
export function listableBy(user: string): string[] {
  return [`c.owner_id = ${user}`, `c.organization_id IN (SELECT m.organization_id FROM organization_members m WHERE m.user_id = ${user})`];
}

export async function listChats(db: Queryable, options: ListChatsOptions): Promise<ChatRow[]> {
  const values: unknown[] = [options.ownerId];
  const where = listableBy("$1");
  if (options.archived !== undefined) {
    values.push(options.archived);
    where.push(`c.archived = $${values.length}`);
  }
  if (options.hasUnread !== undefined) {
    values.push(options.hasUnread);
    where.push(`${HAS_UNREAD_SQL} = $${values.length}`);
  }
  if (options.parentChatId !== undefined) {
    values.push(options.parentChatId);
    where.push(`c.parent_chat_id = $${values.length}`);
  }
  if (options.labels !== undefined && Object.keys(options.labels).length > 0) {
    values.push(JSON.stringify(options.labels));
    where.push(`c.labels @> $${values.length}::jsonb`);
  }
  if (options.afterId !== undefined) {
    values.push(options.afterId);
    where.push(`(c.created_at, c.id) < (SELECT a.created_at, a.id FROM chats a WHERE a.id = $${values.length})`);
  }
  for (const word of options.titleWords ?? []) {
    values.push(`%${likeEscaped(word)}%`);
    where.push(`c.title ILIKE $${values.length}`);
  }
  values.push(Math.max(1, Math.min(options.limit ?? 50, 500)));
  const limit = `$${values.length}`;
  values.push(Math.max(0, Math.min(options.offset ?? 0, LIST_CHATS_MAX_OFFSET)));
  const offset = `$${values.length}`;
  // (created_at, id) is a total order that no later write changes, so an offset names the same
  // place on every page; only a chat created meanwhile shifts it (docs/api.md "Paging").
  const { rows } = await db.query(
    `SELECT c.* FROM chats c WHERE ${where.join(" AND ")} ORDER BY c.created_at DESC, c.id DESC LIMIT ${limit} OFFSET ${offset}`,
    values,
  );
  return rows.map(chatFromRaw);
}

/** `s` matched literally by LIKE: its own `%`, `_` and the escape character lose their meaning. */
function likeEscaped(s: string): string {
  return s.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/** A root chat and its descendants, the root first. */
export async function listFamily(db: Queryable, rootChatId: string): Promise<ChatRow[]> {
  const { rows } = await db.query(`SELECT * FROM chats WHERE id = $1 OR root_chat_id = $1 ORDER BY (id = $1) DESC, created_at, id`, [
    rootChatId,
  ]);
  return rows.map(chatFromRaw);
}

export interface ListMessagesOptions {
  /** Include rows EditMessage soft-deleted. */
  includeDeleted?: boolean;
  /** Include rows hidden from the UI (system prompt, compaction summaries, the clear sentinel). */
  includeModelOnly?: boolean;
  /** Only messages after the one with this id (incremental sync): ids are insertion order. */
  afterId?: number;
}

/** History in order. By default what the UI shows: active, not model-only. */
export async function listMessages(db: Queryable, chatId: string, options: ListMessagesOptions = {}): Promise<ChatMessageRow[]> {
  const values: unknown[] = [chatId];
  const where = ["chat_id = $1"];
  if (!options.includeDeleted) where.push("NOT deleted");
  if (!options.includeModelOnly) where.push("NOT model_only");
  if (options.afterId !== undefined) {
    values.push(options.afterId);
    where.push(`id > $${values.length}`);
  }
  const { rows } = await db.query(`SELECT * FROM chat_messages WHERE ${where.join(" AND ")} ORDER BY id`, values);
  return rows.map(messageFromRaw);
}

/** One page of the history the UI shows, by id: the newest `limit` messages before a cursor. */
export interface MessagePageOptions {
  /** Only messages with a lower id, that is older ones (absent: from the newest). Any integer: a cursor, not a reference. */
  beforeId?: number;
  limit: number;
}

export interface MessagePage {
  /** Oldest first, like the whole history. */
  messages: ChatMessageRow[];
  /** Older shown messages exist before the first of this page. */
  hasMore: boolean;
}

/**
 * A page of the shown history (active, not model-only), newest end first. A chat's rows are
 * inserted under its row lock, so a later message always has a higher id: a message committed
 * while a client pages backwards lands after the newest it has, never inside a page it has yet to read.
 */
export async function listMessagePage(db: Queryable, chatId: string, options: MessagePageOptions): Promise<MessagePage> {
  const values: unknown[] = [chatId];
  const where = ["chat_id = $1", "NOT deleted", "NOT model_only"];
  if (options.beforeId !== undefined) {
    values.push(options.beforeId);
    where.push(`id < $${values.length}`);
  }
  values.push(options.limit + 1);
  const { rows } = await db.query(
    `SELECT * FROM chat_messages WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT $${values.length}`,
    values,
  );
  const hasMore = rows.length > options.limit;
  return { messages: rows.slice(0, options.limit).reverse().map(messageFromRaw), hasMore };
}

export async function listQueue(db: Queryable, chatId: string): Promise<ChatQueuedMessageRow[]> {
  const { rows } = await db.query(`SELECT * FROM chat_queued_messages WHERE chat_id = $1 ORDER BY position`, [chatId]);
  return rows.map(queuedFromRaw);
}

export interface ChatMetadataFields {
  labels?: Record<string, string>;
  pinOrder?: number;
  mcpServerIds?: readonly string[];
  planMode?: boolean;
}

/**
 * Labels and pin order: metadata, no transition, no snapshot bump (spec: "There is other data ...
 * We call it metadata"). Returns undefined when the chat does not exist.
 */
export async function updateChatMetadata(db: Queryable, chatId: string, fields: ChatMetadataFields): Promise<ChatRow | undefined> {
  const values: unknown[] = [chatId];
  const sets: string[] = [];
  if (fields.labels !== undefined) {
    values.push(JSON.stringify(fields.labels));
    sets.push(`labels = $${values.length}::jsonb`);
  }
  if (fields.pinOrder !== undefined) {
    values.push(fields.pinOrder);
    sets.push(`pin_order = $${values.length}`);
  }
  if (fields.mcpServerIds !== undefined) {
    values.push(JSON.stringify(fields.mcpServerIds));
    sets.push(`mcp_server_ids = $${values.length}::jsonb`);
  }
  if (fields.planMode !== undefined) {
    values.push(fields.planMode);
    sets.push(`plan_mode = $${values.length}`);
  }
  if (sets.length === 0) return getChat(db, chatId);
  const { rows } = await db.query(`UPDATE chats SET ${sets.join(", ")}, updated_at = now() WHERE id = $1 RETURNING *`, values);
  return rows[0] === undefined ? undefined : chatFromRaw(rows[0]);
}

/** The chats whose archived marker an archive of `chatId` moves, with their queue lengths: a root's family, or a child alone. */
export async function listArchiveScope(db: Queryable, chatId: string): Promise<{ chat: ChatRow; queueLength: number }[]> {
  const { rows } = await db.query(
    `SELECT c.*, (SELECT count(*)::int FROM chat_queued_messages q WHERE q.chat_id = c.id) AS queue_length
       FROM chats c
      WHERE c.id = $1 OR (c.root_chat_id = $1 AND EXISTS (SELECT 1 FROM chats r WHERE r.id = $1 AND r.parent_chat_id IS NULL))
      ORDER BY (c.id = $1) DESC, c.created_at, c.id`,
    [chatId],
  );
  return rows.map((raw) => ({ chat: chatFromRaw(raw), queueLength: Number(raw.queue_length) }));
}
