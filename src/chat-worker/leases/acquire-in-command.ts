/**
 * Acquire in command (docs/hot-path.md): the spec's Acquire inside the transaction of the command
 * that makes the chat runnable in its own object (Create, SendMessage, EditMessage), so the turn
 * starts at COMMIT without an acquisition of its own. The command's row lock is the acquisition's
 * row lock; in a limited pool, the pool's advisory lock is tried, never awaited, by
 * commandPoolLock's guard in the row lock's round trip, and the slots are counted by the command's
 * commit write (admission.ts recheckAtCommit). While held, that pool lock keeps the pool's other
 * admissions and renewals waiting for the rest of the command, as an acquisition's own
 * transaction would. When admission needs more, the chat is left to acquireChat (admission.ts).
 */
import { isRunnable } from "../../chatstate/index";
import { ownershipOf } from "../../chatstate/chat-versions";
import type { ChatTx } from "../../chats/chat-tx";
import { type LockGuard, lockRowIfSql } from "../../chats/row-lock";
import type { ChatStore, Committed, UpdateOptions } from "../../chats/store";
import { acquire } from "../../chats/transitions/ownership";
import type { RawRow } from "../../db/rows";
import type { ChatMessageRow } from "../../db/schema/chats";
import type { TurnModelRows } from "../../model-configs/turn-model-rows";
import { type ChatSnapshot, turnModelsAtCommit } from "../fenced-db";
import { type AcquireChatOptions, historyAtCommit, recheckAtCommit } from "./admission";
import { ADMISSION_LOCK_KEYS, ADMISSION_LOCK_NAMESPACE, assertLimits, assertThreshold, type PoolLimits } from "./pools";

/**
 * An in-transaction acquisition found its pool full when its commit write counted the slots: the
 * whole transaction rolled back, and its caller runs the command again without the acquisition.
 */
export class PoolFullAtCommitError extends Error {
  override name = "PoolFullAtCommitError";
  constructor(readonly chatId: string) {
    super(`chat ${chatId}: its pool had no free slot at the command's commit`);
  }
}

/** $1 chat id, $2 root limit, $3 subagent limit. */
const ADMISSION_TRY_LOCK_SQL = `
  SELECT CASE WHEN c.worker_id IS NULL AND NOT c.archived AND CASE WHEN c.parent_chat_id IS NULL THEN $2::int ELSE $3::int END > 0
      THEN pg_try_advisory_xact_lock(${ADMISSION_LOCK_NAMESPACE}::int4, (CASE WHEN c.parent_chat_id IS NULL
        THEN ${ADMISSION_LOCK_KEYS.root} ELSE ${ADMISSION_LOCK_KEYS.subagent} END)::int4)
      ELSE false END AS admission_locked,
    ${lockRowIfSql("true")} AS lock_row
  FROM chats c WHERE c.id = $1`;

/** A guard for ChatStore.updateGuarded that never answers; `locked` says what it took. */
export type CommandPoolLock = LockGuard & { answer(row: RawRow | undefined): undefined; readonly locked: boolean };

/**
 * What acquireInCommand needs, in a limited pool, of the transaction it joins: the pool's
 * advisory lock, taken before the row lock as every admission takes it, in the same round trip as
 * the row lock (the guard of ChatStore.updateGuarded, which always locks the row). It is taken only
 * when the chat, as the statement's snapshot sees it, has no owner and its pool has a limit, and
 * without waiting (pg_try_advisory_xact_lock): a command never queues behind an admission, and
 * when the lock is busy the chat is left to the usual acquisition.
 */
export function commandPoolLock(chatId: string, limits: PoolLimits): CommandPoolLock {
  assertLimits(limits);
  let locked = false;
  return {
    text: ADMISSION_TRY_LOCK_SQL,
    values: [chatId, limits.root, limits.subagent],
    answer: (row) => {
      locked = row?.admission_locked === true;
      return undefined;
    },
    get locked() {
      return locked;
    },
  };
}

/**
 * Acquire inside another transaction on the chat (a Create or SendMessage in the chat's own
 * object), which already holds the row lock, when admission needs nothing that transaction does
 * not have: the chat is runnable after that transaction's transitions, it has no owner at all (a
 * stale owner's lease is rechecked by the acquisition loop, under its own locks), and its pool
 * has no limit, or the transaction holds the pool's advisory lock (`poolLocked`, from
 * commandPoolLock). In a limited pool the commit write counts the slots, as acquireChat's does;
 * a full pool fails the transaction with PoolFullAtCommitError. The commit write also writes the
 * heartbeat and reads the new runner's history and model candidates. Answers how to collect that
 * read after COMMIT, or undefined, with nothing staged, when the chat is left to acquireChat.
 */
export async function acquireInCommand(
  tx: ChatTx,
  options: Pick<AcquireChatOptions, "workerId" | "runnerId" | "limits" | "staleThresholdMs"> & { poolLocked?: boolean },
): Promise<(() => Required<Omit<ChatSnapshot, "chat">>) | undefined> {
  const { limits, staleThresholdMs } = options;
  assertLimits(limits);
  assertThreshold(staleThresholdMs);
  const limit = tx.chat.parentChatId === null ? limits.root : limits.subagent;
  if ((limit > 0 && options.poolLocked !== true) || !isRunnable(tx.state()) || ownershipOf(tx.chat) !== "U") return undefined;
  if (limit > 0) tx.checkAtCommit(recheckAtCommit(null, limit, staleThresholdMs, () => new PoolFullAtCommitError(tx.chatId)));
  await acquire(tx, { workerId: options.workerId, runnerId: options.runnerId });
  let history: ChatMessageRow[] | undefined;
  let models: TurnModelRows | undefined;
  tx.checkAtCommit(historyAtCommit((rows) => (history = rows)));
  tx.checkAtCommit(turnModelsAtCommit((rows) => (models = rows)));
  return () => {
    if (!history || !models) throw new Error(`chat ${tx.chatId}: the acquisition's starting read was collected before its commit`);
    return { history, models };
  };
}

/**
 * ChatStore.update for a command that may start a turn (SendMessage), with `acquire` (which applies
 * acquireInCommand, or not) after `fn` in the same transaction. In a limited pool, when
 * `tryPoolLock`, the pool's lock is tried in the row lock's round trip (commandPoolLock) and
 * `acquire` is told whether it is held. When the commit write finds the pool full, the command runs
 * again without the acquisition, and the chat waits for a slot as any other.
 */
export async function updateAcquiringInCommand<T>(
  store: ChatStore,
  chatId: string,
  admission: { limits: PoolLimits; tryPoolLock: boolean },
  fn: (tx: ChatTx) => Promise<T>,
  acquire: (tx: ChatTx, poolLocked: boolean) => Promise<void>,
  options: UpdateOptions = {},
): Promise<Committed<T>> {
  const { limits } = admission;
  const thenAcquire = (poolLocked: () => boolean) => async (tx: ChatTx) => {
    const value = await fn(tx);
    await acquire(tx, poolLocked());
    return value;
  };
  if (!admission.tryPoolLock || (limits.root === 0 && limits.subagent === 0))
    return store.update(
      chatId,
      thenAcquire(() => false),
      options,
    );
  const guard = commandPoolLock(chatId, limits);
  try {
    const committed = await store.updateGuarded(
      chatId,
      guard,
      thenAcquire(() => guard.locked),
      options,
    );
    if ("answer" in committed) throw new Error(`chat ${chatId}: the admission guard answered`);
    return committed;
  } catch (err) {
    if (!(err instanceof PoolFullAtCommitError)) throw err;
    return store.update(chatId, fn, options);
  }
}
