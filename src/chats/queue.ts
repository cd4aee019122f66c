/**
 * Writes to chat_queued_messages. Positions stay contiguous 0..n-1 (0 is the head): every removal
 * or reorder shifts the neighbours in the same statement, which the DEFERRABLE unique constraint
 * on (chat_id, position) allows. The queue_version trigger records every change.
 *
 * Every promotion into history goes through promoteQueued: it answers outstanding tool calls
 * (misc rule 2), then deletes the queue row and inserts it as a user message carrying
 * queued_message_id in one statement. That statement rides with the next one when the row lock
 * read the head; on its own, it fails unless exactly one queue row was deleted.
 */
import type { ChatTx } from "./chat-tx";
import { QueueFullError, StoreInvariantError } from "./errors";
import { answerPendingToolCalls, queueHistory } from "./history";
import { messageFromRaw, queuedFromRaw, type RawRow } from "../db/rows";
import type { ChatMessagePart, ChatQueuedMessageRow, QueuedHookContext } from "../db/schema/chats";
import { InsertedRow } from "./inserted-refs";

export interface NewQueuedMessage {
  content: ChatMessagePart[];
  modelConfigId?: string | null;
  reasoningEffort?: string | null;
  /** Falls back to the chat's owner. */
  createdBy?: string | null;
  /** Lifecycle hook context for after the message, once promoted. */
  hookContext?: QueuedHookContext[] | null;
}

/** Appends to the tail of the queue. */
export async function enqueue(tx: ChatTx, message: NewQueuedMessage): Promise<ChatQueuedMessageRow> {
  if (tx.queueLength >= tx.options.maxQueueLength) throw new QueueFullError(tx.chatId, tx.options.maxQueueLength);
  const [raw] = await tx.query(
    `INSERT INTO chat_queued_messages (chat_id, position, content, model_config_id, reasoning_effort, created_by, hook_context)
     VALUES ($1, $2, $3::jsonb, $4::uuid, $5, $6::uuid, $7::jsonb) RETURNING *`,
    [
      tx.chatId,
      tx.queueLength,
      JSON.stringify(message.content),
      message.modelConfigId ?? null,
      message.reasoningEffort ?? null,
      message.createdBy ?? tx.chat.ownerId,
      message.hookContext && message.hookContext.length > 0 ? JSON.stringify(message.hookContext) : null,
    ],
  );
  if (raw === undefined) throw new StoreInvariantError("queue insert returned no row");
  const queued = queuedFromRaw(raw);
  // Appended at the tail: it is the head only of a queue that was empty.
  tx.noteQueueChange(+1, tx.queueLength === 0 ? queued : tx.queueHead);
  return queued;
}

export async function findQueued(tx: ChatTx, queuedMessageId: number): Promise<ChatQueuedMessageRow | undefined> {
  const [raw] = await tx.query(`SELECT * FROM chat_queued_messages WHERE id = $2 AND chat_id = $1`, [tx.chatId, queuedMessageId]);
  return raw === undefined ? undefined : queuedFromRaw(raw);
}

/** Removes one queued message and closes the gap; undefined when the chat holds no such row. */
export async function removeQueued(tx: ChatTx, queuedMessageId: number): Promise<ChatQueuedMessageRow | undefined> {
  const [row] = await tx.query<{ removed: RawRow | null }>(
    `WITH removed AS (
       DELETE FROM chat_queued_messages WHERE id = $2 AND chat_id = $1 RETURNING *
     ), shifted AS (
       UPDATE chat_queued_messages q SET position = q.position - 1
       FROM removed r WHERE q.chat_id = $1 AND q.position > r.position
       RETURNING q.id
     )
     SELECT (SELECT to_jsonb(r) FROM removed r) AS removed, (SELECT count(*) FROM shifted) AS shifted`,
    [tx.chatId, queuedMessageId],
  );
  if (!row?.removed) return undefined;
  const removed = queuedFromRaw(row.removed);
  tx.noteQueueChange(-1, tx.queueLength === 1 ? null : removed.position === 0 ? undefined : tx.queueHead);
  return removed;
}

/** Deletes the whole queue (EditMessage); returns the deleted ids in queue order. */
export async function clearQueue(tx: ChatTx): Promise<number[]> {
  if (tx.queueLength === 0) return [];
  // bigint arrives as a string from a bare RETURNING.
  const rows = await tx.query<{ id: string; position: number }>(
    `DELETE FROM chat_queued_messages WHERE chat_id = $1 RETURNING id, position`,
    [tx.chatId],
  );
  tx.noteQueueChange(-rows.length, null);
  return rows.sort((a, b) => a.position - b.position).map((r) => Number(r.id));
}

/** Moves a queued message to the head, shifting the ones before it back by one. */
export async function moveToHead(tx: ChatTx, queued: ChatQueuedMessageRow): Promise<void> {
  if (queued.position === 0) return;
  await tx.query(
    `UPDATE chat_queued_messages SET position = CASE WHEN id = $2 THEN 0 ELSE position + 1 END
     WHERE chat_id = $1 AND position <= $3`,
    [tx.chatId, queued.id, queued.position],
  );
  tx.noteQueueChange(0, { ...queued, position: 0 });
}

export interface Promotion {
  /** The promoted user message's place among the transaction's inserted rows, resolved after COMMIT. */
  readonly message: InsertedRow;
  readonly queued: ChatQueuedMessageRow;
}

/** Deletes queue row $2 of chat $1, closes the gap, and inserts it into history as a user message. */
const PROMOTE_SQL = (targetSql: string) => `WITH target AS (
       DELETE FROM chat_queued_messages WHERE chat_id = $1 AND ${targetSql} RETURNING *
     ), shifted AS (
       UPDATE chat_queued_messages q SET position = q.position - 1
       FROM target t WHERE q.chat_id = $1 AND q.position > t.position
       RETURNING q.id
     ), promoted AS (
       INSERT INTO chat_messages (chat_id, role, content, queued_message_id, model_config_id, reasoning_effort, created_by)
       SELECT chat_id, 'user', content, id, model_config_id, reasoning_effort, created_by FROM target
       RETURNING *
     )`;

/**
 * Promotes the queue head (`"head"`) or a given queued message into history as a user message.
 * When the transaction knows the head (its lock read it with the tail), promoting the head is
 * queued: it rides with the next statement (the commit write's, for the transition's last write),
 * and `message` names its row's place. Otherwise it is one statement of its own, which throws
 * StoreInvariantError unless exactly one queue row was deleted. A queued promotion needs no such
 * check: the row lock keeps the head as read, and the commit write checks the queue's length.
 */
export async function promoteQueued(tx: ChatTx, target: "head" | number, cancelReason: string): Promise<Promotion> {
  // Misc rule 2 before the user message lands; no statement when nothing is pending.
  // Their INSERT rides with the promotion's statement.
  await answerPendingToolCalls(tx, { dynamicOnly: false, reason: cancelReason });
  await tx.beforeHistoryWrite();
  const head = target === "head" ? tx.queueHead : undefined;
  const { queued, message } = head ? queuePromotion(tx, head) : await promoteNow(tx, target);
  tx.noteQueueChange(-1, tx.queueLength === 1 ? null : undefined);
  // A lifecycle hook's context for this prompt follows it into history (docs/hooks.md).
  if (queued.hookContext?.length) {
    await queueHistory(
      tx,
      queued.hookContext.map((c) => ({ role: "user" as const, content: c.content, modelOnly: c.model_only, createdBy: null })),
      cancelReason,
    );
  }
  return { queued, message };
}

/** The promotion of the head the row lock read, riding with the next statement: its row takes the next place. */
function queuePromotion(tx: ChatTx, head: ChatQueuedMessageRow): Promotion {
  const message = new InsertedRow(tx.inserted.count);
  const written = {
    role: "user" as const,
    content: head.content,
    modelConfigId: head.modelConfigId,
    reasoningEffort: head.reasoningEffort,
    createdBy: head.createdBy,
  };
  tx.inserted.queueInsert(`${PROMOTE_SQL("id = $2")} SELECT * FROM promoted`, [tx.chatId, head.id], [written], (rows) => {
    if (rows.length !== 1)
      throw new StoreInvariantError(`promoting the head of chat ${tx.chatId} inserted ${rows.length} messages, want 1`);
    tx.inserted.arrived([messageFromRaw(rows[0]!)]);
  });
  return { queued: head, message };
}

/** The promotion as a statement of its own; queued INSERTs go out before it, so its row takes the next place too. */
async function promoteNow(tx: ChatTx, target: "head" | number): Promise<Promotion> {
  const message = new InsertedRow(tx.inserted.count);
  const [row] = await tx.query<{ deleted: number; queued: RawRow | null; message: RawRow | null }>(
    `${PROMOTE_SQL(target === "head" ? "position = 0" : "id = $2")}
     SELECT (SELECT count(*)::int FROM target) AS deleted,
            (SELECT to_jsonb(t) FROM target t LIMIT 1) AS queued,
            (SELECT to_jsonb(p) FROM promoted p LIMIT 1) AS message,
            (SELECT count(*) FROM shifted) AS shifted`,
    target === "head" ? [tx.chatId] : [tx.chatId, target],
  );
  if (row === undefined || row.deleted !== 1 || !row.queued || !row.message) {
    throw new StoreInvariantError(`promoting ${target} of chat ${tx.chatId} deleted ${row?.deleted ?? 0} queue rows, want exactly 1`);
  }
  tx.inserted.arrived([messageFromRaw(row.message)]);
  return { queued: queuedFromRaw(row.queued), message };
}
