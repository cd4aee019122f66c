/**
 * Every database access of a task goes through here, under the chat's row lock and the task's
 * fence: reads holding the row FOR SHARE (one statement), writes inside ChatStore.update.
 * A fence mismatch throws FenceError and, for writes, rolls the transition back.
 */
import type { TailPrefetch } from "../chats/row-lock";
import type { ChatTx } from "../chats/chat-tx";
import type { CommitCheck } from "../chats/commit-write";
import { unchangedSinceSnapshotSql } from "../chats/row-lock";
import { listMessages } from "../chats/queries";
import { chatFromRaw, messageFromRaw, type RawRow } from "../db/rows";
import type { ChatMessageRow, ChatRow } from "../db/schema/chats";
import type { ChatStore, Committed } from "../chats/store";
import { ChatNotFoundError } from "../chatstate/errors";
import { type TurnModelRows, turnModelRowsFromJson, turnModelRowsSql } from "../model-configs/turn-model-rows";
import { recordGenerationAttempt } from "../chats/transitions/generation-attempts";
import { checkFence, type Fence } from "./fence";

export interface ChatSnapshot {
  chat: ChatRow;
  /** Every row in order, deleted and model-only ones included (prompt assembly picks). */
  history: ChatMessageRow[];
  /** The turn's model candidates, when the statement that read the chat read them too (model-for-turn.ts). */
  models?: TurnModelRows;
  /**
   * The commit that left this read applied RecordGenerationAttempt for the fence's runner (an
   * acquisition in the command that made the chat runnable): the attempt number, for the first
   * model call to use instead of recording one (attemptForCall). Used once.
   */
  recordedAttempt?: number;
}

/** A chat's every history row as one JSON array, in order; `chatId` is the SQL naming the chat's id. */
export function historyJsonSql(chatId: string): string {
  return `(SELECT coalesce(json_agg(m ORDER BY m.id), '[]'::json) FROM chat_messages m WHERE m.chat_id = ${chatId})`;
}

/** The rows of historyJsonSql's array. */
export function historyFromJson(history: unknown): ChatMessageRow[] {
  return ((history ?? []) as RawRow[]).map(messageFromRaw);
}

/**
 * The fenced read in one statement: the row FOR SHARE, and its history as one JSON array. The
 * history subquery reads the statement's snapshot, taken before any wait for the row lock, while
 * the row comes back as locked; every history write bumps the row under its lock (ChatTx), so when
 * the snapshot saw the locked row's versions the history is the locked row's (`unchanged`).
 * Otherwise the read runs again as a transaction that reads the history after taking the lock.
 * With the history it reads the turn's model candidates, which no lock orders.
 */
function lockedReadSql(withHistory: boolean): string {
  const reads = withHistory ? `,\n    ${historyJsonSql("$1")} AS history,\n    ${turnModelRowsSql("locked")} AS models` : "";
  return `WITH locked AS (SELECT * FROM chats WHERE id = $1 FOR SHARE)
  SELECT locked.*,
    ${unchangedSinceSnapshotSql("locked", 0)} AS unchanged${reads}
  FROM locked`;
}

const LOCKED_READ_SQL = lockedReadSql(true);
const LOCKED_CHAT_READ_SQL = lockedReadSql(false);

export async function fencedRead(store: ChatStore, fence: Fence, withHistory = true): Promise<ChatSnapshot> {
  const { rows } = await store.pool.query<RawRow & { unchanged: boolean; history?: RawRow[]; models?: unknown }>(
    withHistory ? LOCKED_READ_SQL : LOCKED_CHAT_READ_SQL,
    [fence.chatId],
  );
  const [raw] = rows;
  if (raw === undefined) throw new ChatNotFoundError(fence.chatId);
  if (raw.unchanged !== true) return fencedReadInTransaction(store, fence, withHistory);
  const chat = chatFromRaw(raw);
  checkFence(chat, fence);
  return { chat, history: historyFromJson(raw.history), ...(raw.models ? { models: turnModelRowsFromJson(raw.models) } : {}) };
}

/** The read when a commit on the chat ended the statement's wait for the lock: history after the lock. */
function fencedReadInTransaction(store: ChatStore, fence: Fence, withHistory: boolean): Promise<ChatSnapshot> {
  return store.transaction(async (t) => {
    const [raw] = await t.query(`SELECT * FROM chats WHERE id = $1 FOR SHARE`, [fence.chatId]);
    if (raw === undefined) throw new ChatNotFoundError(fence.chatId);
    const chat = chatFromRaw(raw);
    checkFence(chat, fence);
    const history = withHistory
      ? await listMessages(await t.connection(), fence.chatId, { includeDeleted: true, includeModelOnly: true })
      : [];
    return { chat, history };
  });
}

/**
 * The turn's model candidates in a commit write's RETURNING, for a read that starts the next step
 * from it. Checks nothing. `wanted`, asked when the commit write is built: whether a next step
 * will call the model (not after a commit that ended the turn); when not, nothing is read.
 */
export function turnModelsAtCommit(found: (models: TurnModelRows) => void, wanted: () => boolean = () => true): CommitCheck {
  let selected = false;
  return {
    columns: () => {
      selected = wanted();
      return selected ? `${turnModelRowsSql("chats")} AS models` : "";
    },
    read: (raw) => {
      if (selected) found(turnModelRowsFromJson(raw.models));
    },
  };
}

/**
 * `prefetchTail`: the transition reads the active history tail (saves a statement).
 * `prefetchQueueHead`: it may promote the queue head, whose promotion then rides with the commit.
 */
export function fencedUpdate<T>(
  store: ChatStore,
  fence: Fence,
  fn: (tx: ChatTx) => Promise<T>,
  prefetchTail: TailPrefetch = false,
  prefetchQueueHead = false,
): Promise<Committed<T>> {
  return store.update(
    fence.chatId,
    async (tx) => {
      checkFence(tx.chat, fence);
      return fn(tx);
    },
    { prefetchTail, prefetchQueueHead },
  );
}

/**
 * The generation attempt a model call starting from `read` runs as: the one the commit that left
 * `read` recorded for this runner, the first time it is asked for (no call has used it yet), else
 * RecordGenerationAttempt now (fencedRecordAttempt).
 */
export async function attemptForCall(store: ChatStore, fence: Fence, read: ChatSnapshot): Promise<number> {
  const recorded = read.recordedAttempt;
  if (recorded !== undefined) {
    delete read.recordedAttempt;
    return recorded;
  }
  return (await fencedRecordAttempt(store, fence)).chat.generationAttempt;
}

/**
 * RecordGenerationAttempt under the fence, before every model call: one statement when the row is
 * the fence's (ChatStore.recordOwnedAttempt), otherwise the usual transaction, which throws what
 * the row is instead (FenceError, or the state machine's refusal).
 */
export async function fencedRecordAttempt(store: ChatStore, fence: Fence): Promise<Committed<void>> {
  if (fence.status === "running") {
    const owned = { chatId: fence.chatId, workerId: fence.workerId, runnerId: fence.runnerId, historyVersion: fence.historyVersion };
    const recorded = await store.recordOwnedAttempt(owned);
    if (recorded) return recorded;
  }
  return fencedUpdate(store, fence, (tx) => recordGenerationAttempt(tx));
}
