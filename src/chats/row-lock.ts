/**
 * Locking a chat row, the first statement of every chat transaction: an UPDATE that takes the row
 * lock and advances snapshot_version before any other write, with the reads the transaction needs
 * up front (the queue count, and when its transition declares them the active history tail and the
 * queue head) in the same round trip. A guard statement may go out ahead of it and decide against
 * the lock (lockRowIfSql), so one round trip can end a transaction that has nothing to do.
 */
import { ChatNotFoundError } from "../chatstate/index";
import { chatFromRaw, messageFromRaw, queuedFromRaw, type RawRow } from "../db/rows";
import type { ChatMessageRow, ChatQueuedMessageRow, ChatRow } from "../db/schema/chats";
import type { StoreTransaction } from "../db/transaction";
import { ACTIVE_TAIL_SQL } from "./active-tail";

/** Prefetch the active history tail (and the queue head) with the queue count (one statement instead of two). */
export type TailPrefetch = boolean | ((chat: ChatRow) => boolean);

/** What the row lock reads besides the row and the queue count. */
export interface LockReads {
  tail: TailPrefetch;
  /** The queue head: a promotion of it then rides with the next statement (queue.ts). Tail prefetches read it too. */
  queueHead?: boolean;
}

/** The locked row and what was read with it. */
export interface LockedRow {
  chat: ChatRow;
  queueLength: number;
  /** The active tail, when the lock read it. */
  tail: ChatMessageRow[] | undefined;
  /** The queue head (null: the queue is empty), when the lock read it. */
  queueHead: ChatQueuedMessageRow | null | undefined;
}

/** A statement sent ahead of lockChatRowIf's row lock; it decides with lockRowIfSql. */
export interface LockGuard {
  text: string;
  values: readonly unknown[];
}

/**
 * Locks the chat row and advances snapshot_version in one statement, counting the queue (and
 * reading the tail) in the same statement when no other transaction committed on the chat while
 * it waited for the lock (lockBumpAndReadSql); otherwise in a second statement, a fresh snapshot
 * that sees every queue change committed before the lock was granted. A prefetch that depends on
 * the row reads the tail in the first statement either way: a small read where a round trip is the
 * cost. Throws ChatNotFoundError when the row does not exist.
 */
export async function lockChatRow(t: StoreTransaction, chatId: string, reads: LockReads): Promise<LockedRow> {
  const [raw] = await t.query(lockSql(reads.tail !== false, reads.queueHead === true, false), [chatId]);
  if (raw === undefined) throw new ChatNotFoundError(chatId);
  return lockedRow(t, chatId, raw, reads);
}

/**
 * lockChatRow after `guard`, in one round trip: the row is locked (and bumped) only when the
 * guard's lockRowIfSql condition was true, so a guard that decides against it leaves the row
 * untouched. The guard runs first, so any lock it takes comes before the row lock. Answers the
 * guard's row and the locked row, or none when the guard decided against the lock or the row is gone.
 */
export async function lockChatRowIf(
  t: StoreTransaction,
  chatId: string,
  reads: LockReads,
  guard: LockGuard,
): Promise<{ guardRow: RawRow | undefined; locked: LockedRow | undefined }> {
  const lock = lockSql(reads.tail !== false, reads.queueHead === true, true);
  const [guardRows, lockRows] = await t.queryEach([guard, { text: lock, values: [chatId] }]);
  const raw = lockRows?.[0];
  return { guardRow: guardRows?.[0], locked: raw === undefined ? undefined : await lockedRow(t, chatId, raw, reads) };
}

type Prefetched = { queue_length: number; tail?: RawRow[]; queue_head?: RawRow | null };

async function lockedRow(t: StoreTransaction, chatId: string, raw: RawRow, reads: LockReads): Promise<LockedRow> {
  const locked = raw as RawRow & Prefetched & { unchanged: boolean };
  const chat = chatFromRaw(locked);
  const row = (read: Prefetched): LockedRow => ({
    chat,
    queueLength: read.queue_length,
    tail: read.tail?.map(messageFromRaw),
    queueHead: read.queue_head === undefined ? undefined : read.queue_head === null ? null : queuedFromRaw(read.queue_head),
  });
  if (locked.unchanged === true) return row(locked);
  // A prefetch that depends on the row asks again on what the lock holds.
  const wantTail = typeof reads.tail === "function" ? reads.tail(chat) : reads.tail;
  const wantHead = reads.queueHead === true;
  const [again] = await t.query<Prefetched>(wantTail || wantHead ? recountSql(wantTail, wantHead) : QUEUE_LENGTH_SQL, [chatId]);
  return row({ ...again, queue_length: again?.queue_length ?? 0, ...(wantTail ? { tail: again?.tail ?? [] } : {}) });
}

/**
 * Whether the chat row `alias`, as a locking statement returns it, is the row that statement's
 * snapshot saw (`ownBumps`: the snapshot_version bumps the statement itself made): then nothing
 * was committed on the chat while it waited for the lock, and its subqueries, which read the
 * snapshot, read what the lock holds. Every write to a chat's history or queue bumps the row under
 * its lock first (ChatTx), so equal versions mean equal history and queue.
 */
export function unchangedSinceSnapshotSql(alias: string, ownBumps: 0 | 1): string {
  return `coalesce((SELECT s.snapshot_version = ${alias}.snapshot_version${ownBumps === 1 ? " - 1" : ""}
        AND s.history_version = ${alias}.history_version AND s.queue_version = ${alias}.queue_version
      FROM chats s WHERE s.id = ${alias}.id), false)`;
}

const TAIL_SQL = `(SELECT coalesce(jsonb_agg(to_jsonb(t) ORDER BY t.id), '[]'::jsonb) FROM (${ACTIVE_TAIL_SQL}) t)`;
/** The queue head as a JSON row, or null for an empty queue. */
const QUEUE_HEAD_SQL = "(SELECT to_jsonb(q) FROM chat_queued_messages q WHERE q.chat_id = $1 AND q.position = 0)";

/** The select-list of the count (and the tail, and the head) for $1's chat. */
function queueReadsSql(withTail: boolean, withHead: boolean): string {
  return [
    "(SELECT count(*)::int FROM chat_queued_messages WHERE chat_id = $1) AS queue_length",
    ...(withTail ? [`${TAIL_SQL} AS tail`] : []),
    ...(withTail || withHead ? [`${QUEUE_HEAD_SQL} AS queue_head`] : []),
  ].join(",\n    ");
}

/**
 * The lock-and-bump with the queue count (and the tail, and the head) in its RETURNING: one round
 * trip instead of two, valid only when nothing was committed on the chat between the statement's
 * snapshot and the row lock. Its subqueries read that snapshot, taken before any wait for the
 * lock, while the row comes back as locked; every write to a chat's queue or history bumps the row
 * under its lock first (ChatTx is the only writer), so the row as the snapshot saw it being one
 * bump behind the locked one means the counts are current. Otherwise `unchanged` is false and they
 * are read again (recountSql).
 */
function lockBumpAndReadSql(withTail: boolean, withHead: boolean, guarded: boolean): string {
  return `UPDATE chats SET snapshot_version = snapshot_version + 1 WHERE id = $1${guarded ? ` AND ${LOCK_ROW_GUARD_SQL}` : ""}
  RETURNING *,
    ${unchangedSinceSnapshotSql("chats", 1)} AS unchanged,
    ${queueReadsSql(withTail, withHead)}`;
}

/** The transaction-local setting a guard statement leaves for lockChatRowIf's row lock. */
const LOCK_ROW_SETTING = "chatd.lock_row";
const LOCK_ROW_GUARD_SQL = `current_setting('${LOCK_ROW_SETTING}', true) = 'true'`;

/**
 * A select-list expression for lockChatRowIf's guard statement: the row lock that follows in the
 * same round trip locks the row only when `condition` (a boolean) was true.
 */
export function lockRowIfSql(condition: string): string {
  return `set_config('${LOCK_ROW_SETTING}', (${condition})::text, true)`;
}

/** The lock statements by what they read (built once each). */
const LOCK_SQL = new Map<string, string>();
function lockSql(withTail: boolean, withHead: boolean, guarded: boolean): string {
  const key = `${withTail}/${withHead}/${guarded}`;
  const built = LOCK_SQL.get(key);
  if (built !== undefined) return built;
  const sql = lockBumpAndReadSql(withTail, withHead, guarded);
  LOCK_SQL.set(key, sql);
  return sql;
}

/** A chat's queue length ($1 the chat id), as `queue_length`. */
export const QUEUE_LENGTH_SQL = `SELECT count(*)::int AS queue_length FROM chat_queued_messages WHERE chat_id = $1`;

/** The lock's reads again, on a fresh snapshot, after a commit the lock waited for. */
const recountSql = (withTail: boolean, withHead: boolean) => `SELECT ${queueReadsSql(withTail, withHead)}`;
