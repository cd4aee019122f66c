/**
 * The stream loop's database reads (spec "Stream loop"): a Sync's snapshot, read in one read-only
 * repeatable-read transaction so the chat row, the changed messages, the queue and the pending
 * dynamic tool calls all come from the same instant; and the sync poller's single version query.
 *
 * What is read follows the conditions `applySnapshot` (src/stream/sync.ts) applies: nothing is
 * read that the loop will not use.
 */
import type { Pool, PoolClient } from "@neondatabase/serverless";
import { type ChatVersions, versionsFromRow } from "../chatstate/index";
import { errorPayloadOf } from "../wire/chat-error";
import type { PendingToolCall } from "../wire/stream-events";
import type { SyncChatRow, SyncReadCursors, SyncSnapshot } from "./sync-snapshot";
import { ACTIVE_TAIL_SQL } from "../chats/active-tail";
import { pendingClientCalls } from "../chats/pending-client-calls";
import { inTransaction } from "../db/transaction";
import { chatFromRaw, messageFromRaw, queuedFromRaw, type RawRow } from "../db/rows";
import type { ChatRow } from "../db/schema/chats";
import { messageToWire, queuedToWire, type ChatMessageWire, type ChatQueuedMessageWire } from "../wire/chat-wire";

/** The chat columns a Sync reads: the versions, and what its events carry. */
type SyncChatFields = ChatVersions & Pick<ChatRow, "id" | "retryState" | "lastError" | "lastErrorDetail" | "unsafeDynamicTools">;

const SYNC_CHAT_SQL = `
  SELECT id, snapshot_version, history_version, queue_version, retry_state_version, generation_attempt,
         status, worker_id, retry_state, last_error, last_error_detail, unsafe_dynamic_tools
  FROM chats WHERE id = $1`;

/** Client-visible rows changed since a history version, soft-deleted ones included. */
const CHANGED_MESSAGES_SQL = `
  SELECT * FROM chat_messages
  WHERE chat_id = $1 AND NOT model_only AND revision > $2
  ORDER BY id`;

/** The whole current client-visible history. */
const VISIBLE_HISTORY_SQL = `
  SELECT * FROM chat_messages
  WHERE chat_id = $1 AND NOT deleted AND NOT model_only
  ORDER BY id`;

const QUEUE_SQL = `SELECT * FROM chat_queued_messages WHERE chat_id = $1 ORDER BY position`;

/** The sync poller's query, exactly the spec's. */
const SYNC_HINTS_SQL = `
  SELECT id, snapshot_version, history_version, queue_version,
         retry_state_version, generation_attempt, status, worker_id
  FROM chats
  WHERE id = ANY($1::uuid[])`;

function syncChatRow(chat: SyncChatFields): SyncChatRow {
  return { ...versionsFromRow(chat), retryState: chat.retryState, error: errorPayloadOf(chat.lastError, chat.lastErrorDetail) };
}

async function rowsOf(client: PoolClient, text: string, values: unknown[]): Promise<RawRow[]> {
  const result = await client.query(text, values);
  return result.rows as RawRow[];
}

/**
 * Message synchronization's reads: the client-visible rows with revision > `since`; if one of them
 * was soft-deleted, the whole current client-visible history instead (`refresh: true`).
 */
async function readMessages(client: PoolClient, chatId: string, since: number): Promise<{ refresh: boolean; rows: ChatMessageWire[] }> {
  const changed = (await rowsOf(client, CHANGED_MESSAGES_SQL, [chatId, since])).map(messageFromRaw);
  if (!changed.some((m) => m.deleted)) return { refresh: false, rows: changed.map((m) => messageToWire(m)) };
  const current = (await rowsOf(client, VISIBLE_HISTORY_SQL, [chatId])).map(messageFromRaw);
  return { refresh: true, rows: current.map((m) => messageToWire(m)) };
}

async function readQueue(client: PoolClient, chatId: string): Promise<ChatQueuedMessageWire[]> {
  return (await rowsOf(client, QUEUE_SQL, [chatId])).map((q) => queuedToWire(queuedFromRaw(q)));
}

/** The active tail's pending calls of the chat's dynamic tools (history.ts `pendingCalls(tx, true)`). */
async function readPendingDynamicCalls(client: PoolClient, chat: SyncChatFields): Promise<PendingToolCall[]> {
  return pendingClientCalls((await rowsOf(client, ACTIVE_TAIL_SQL, [chat.id])).map(messageFromRaw), chat);
}

async function readInTransaction(client: PoolClient, chatId: string, cursors: Readonly<SyncReadCursors>): Promise<SyncSnapshot | null> {
  const [raw] = await rowsOf(client, SYNC_CHAT_SQL, [chatId]);
  if (raw === undefined) return null;
  const chat: SyncChatFields = chatFromRaw(raw);
  const snapshot: SyncSnapshot = { chat: syncChatRow(chat), messages: null, queue: null, pendingToolCalls: null };
  // Not newer than what the loop has: the caller discards it, so nothing else is worth reading.
  if (chat.snapshotVersion <= cursors.snapshotVersion) return snapshot;
  if (chat.historyVersion > cursors.historyVersion) snapshot.messages = await readMessages(client, chatId, cursors.historyVersion);
  if (chat.queueVersion > cursors.queueVersion) snapshot.queue = await readQueue(client, chatId);
  if (chat.status === "requires_action" && chat.historyVersion > cursors.actionRequiredHistoryVersion) {
    snapshot.pendingToolCalls = await readPendingDynamicCalls(client, chat);
  }
  return snapshot;
}

/**
 * Reads what one Sync needs, all in one `REPEATABLE READ READ ONLY` transaction on one pooled
 * connection; null when the chat does not exist. Implements `SyncReader` given a pool.
 */
export async function readSyncSnapshot(pool: Pool, chatId: string, cursors: Readonly<SyncReadCursors>): Promise<SyncSnapshot | null> {
  return inTransaction(pool, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", (client) => readInTransaction(client, chatId, cursors));
}

type HintFields = ChatVersions & Pick<ChatRow, "id">;

/**
 * The sync poller's read: every field of a Sync's hints for each of `chatIds` that exists, in one
 * query. Chats that do not exist are absent from the map.
 */
export async function readSyncHints(pool: Pool, chatIds: readonly string[]): Promise<Map<string, ChatVersions>> {
  const hints = new Map<string, ChatVersions>();
  if (chatIds.length === 0) return hints;
  const { rows } = await pool.query(SYNC_HINTS_SQL, [[...chatIds]]);
  for (const raw of rows as RawRow[]) {
    const chat: HintFields = chatFromRaw(raw);
    hints.set(chat.id, versionsFromRow(chat));
  }
  return hints;
}
