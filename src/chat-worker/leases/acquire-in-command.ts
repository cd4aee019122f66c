/**
 * Acquire in command (docs/hot-path.md): the spec's Acquire inside the transaction of the command
 * that makes the chat runnable in its own object (Create, SendMessage, EditMessage), so the turn
 * starts at COMMIT without an acquisition of its own. The command's row lock is the acquisition's
 * row lock; in a limited pool, the pool's advisory lock is tried, never awaited, by
 * commandPoolLock's guard in the row lock's round trip, and the slots are counted by the command's
 * commit write (admission.ts recheckAtCommit). While held, that pool lock keeps the pool's other
 * admissions and renewals waiting for the rest of the command, as an acquisition's own
 * transaction would. When admission needs more, the chat is left to acquireChat (admission.ts).
 *
 * The same transaction also applies the new runner's first RecordGenerationAttempt (R0 --> R0 or
 * R1 --> R1, on the runner's behalf, as Acquire is): the increment rides in the commit write, and
 * the runner's first model call uses that attempt instead of a statement of its own, so a turn
 * started by a send reaches the model request two round trips after the POST (docs/send-path.md).
 */
import { isRunnable } from "../../chatstate/index";
import { ownershipOf } from "../../chatstate/chat-versions";
import type { ChatTx } from "../../chats/chat-tx";
import { type LockGuard, lockRowIfSql } from "../../chats/row-lock";
import type { ChatStore, Committed, UpdateOptions } from "../../chats/store";
import { acquire } from "../../chats/transitions/ownership";
import { recordGenerationAttempt } from "../../chats/transitions/generation-attempts";
import type { RawRow } from "../../db/rows";
import type { ChatMessageRow, ChatRow } from "../../db/schema/chats";
import type { TurnModelRows } from "../../model-configs/turn-model-rows";
import { type ChatSnapshot, turnModelsAtCommit } from "../fenced-db";
import { type AcquireChatOptions, historyAtCommit, recheckAtCommit } from "./admission";
import {
  ADMISSION_LOCK_KEYS,
  ADMISSION_LOCK_NAMESPACE,
  assertLimits,
  assertShares,
  assertThreshold,
  isLimited,
  type PoolLimits,
  poolAdmission,
  type TenantShares,
} from "./pools";

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

/** $1 chat id, $2 and $3 whether admission to the root and the subagent pool counts slots (1) or not (0). */
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
export function commandPoolLock(chatId: string, limits: PoolLimits, shares: TenantShares): CommandPoolLock {
  assertLimits(limits);
  assertShares(shares);
  const limited = (pool: "root" | "subagent") => (isLimited(poolAdmission(limits, shares, pool)) ? 1 : 0);
  let locked = false;
  return {
    text: ADMISSION_TRY_LOCK_SQL,
    values: [chatId, limited("root"), limited("subagent")],
    answer: (row) => {
      locked = row?.admission_locked === true;
      return undefined;
    },
    get locked() {
      return locked;
    },
  };
}

/** What an in-command acquisition needs of the worker: its ids and the admission it applies. */
export type InCommandAdmission = Pick<AcquireChatOptions, "workerId" | "runnerId" | "limits" | "shares" | "staleThresholdMs">;

/**
 * An acquisition staged in a command's transaction: the runner it acquired the chat for, and the
 * starting read its commit write collects (the new runner's history and model candidates, and the
 * generation attempt recorded for its first model call).
 */
export class AcquiredInCommand {
  history: ChatMessageRow[] | undefined;
  models: TurnModelRows | undefined;

  constructor(readonly runnerId: string) {}

  /** After COMMIT: the committed `chat` with what the commit write read for it. */
  startingRead(chat: ChatRow): Required<ChatSnapshot> {
    if (!this.history || !this.models) throw new Error(`chat ${chat.id}: the acquisition's starting read was collected before its commit`);
    return { chat, history: this.history, models: this.models, recordedAttempt: chat.generationAttempt };
  }
}

/**
 * Acquire inside another transaction on the chat (a Create or SendMessage in the chat's own
 * object), which already holds the row lock, when admission needs nothing that transaction does
 * not have: the chat is runnable after that transaction's transitions, it has no owner at all (a
 * stale owner's lease is rechecked by the acquisition loop, under its own locks), and its pool
 * has no limit, or the transaction holds the pool's advisory lock (`poolLocked`, from
 * commandPoolLock). In a limited pool the commit write counts the slots, as acquireChat's does;
 * a full pool fails the transaction with PoolFullAtCommitError. The commit write also writes the
 * heartbeat, increments generation_attempt (RecordGenerationAttempt for the new runner's first
 * model call), and reads the new runner's history and model candidates. Undefined, with nothing
 * staged, when the chat is left to acquireChat.
 */
export async function acquireInCommand(
  tx: ChatTx,
  options: InCommandAdmission & { poolLocked?: boolean },
): Promise<AcquiredInCommand | undefined> {
  const { limits, shares, staleThresholdMs } = options;
  assertLimits(limits);
  assertShares(shares);
  assertThreshold(staleThresholdMs);
  const admission = poolAdmission(limits, shares, tx.chat.parentChatId === null ? "root" : "subagent");
  const limited = isLimited(admission);
  if ((limited && options.poolLocked !== true) || !isRunnable(tx.state()) || ownershipOf(tx.chat) !== "U") return undefined;
  if (limited) tx.checkAtCommit(recheckAtCommit(null, admission, staleThresholdMs, () => new PoolFullAtCommitError(tx.chatId)));
  await acquire(tx, { workerId: options.workerId, runnerId: options.runnerId });
  // After the command's history writes: their trigger reset the attempt, and this counts from 0.
  await recordGenerationAttempt(tx);
  const acquired = new AcquiredInCommand(options.runnerId);
  tx.checkAtCommit(historyAtCommit((rows) => (acquired.history = rows)));
  tx.checkAtCommit(turnModelsAtCommit((rows) => (acquired.models = rows)));
  return acquired;
}

/** What updateAcquiringInCommand answers: the command's commit, and the acquisition when one was staged and committed. */
export type CommittedAcquiring<T> = Committed<T> & { readonly acquired: AcquiredInCommand | undefined };

/**
 * ChatStore.update for a command that may start a turn (SendMessage, EditMessage), with
 * acquireInCommand after `fn` in the same transaction when `admission` is given (null: the worker
 * does not acquire now). In a limited pool, the pool's lock is tried in the row lock's round trip
 * (commandPoolLock) and acquireInCommand is told whether it is held. When the commit write finds
 * the pool full, the command runs again without the acquisition, and the chat waits for a slot as
 * any other.
 */
export async function updateAcquiringInCommand<T>(
  store: ChatStore,
  chatId: string,
  admission: InCommandAdmission | null,
  fn: (tx: ChatTx) => Promise<T>,
  options: UpdateOptions = {},
): Promise<CommittedAcquiring<T>> {
  if (admission === null) return { ...(await store.update(chatId, fn, options)), acquired: undefined };
  const { limits, shares } = admission;
  const unlimited = !isLimited(poolAdmission(limits, shares, "root")) && !isLimited(poolAdmission(limits, shares, "subagent"));
  const guard = unlimited ? undefined : commandPoolLock(chatId, limits, shares);
  const thenAcquire = async (tx: ChatTx) => {
    const value = await fn(tx);
    return { value, acquired: await acquireInCommand(tx, { ...admission, poolLocked: guard?.locked ?? false }) };
  };
  try {
    const committed = guard
      ? await store.updateGuarded(chatId, guard, thenAcquire, options)
      : await store.update(chatId, thenAcquire, options);
    if ("answer" in committed) throw new Error(`chat ${chatId}: the admission guard answered`);
    return { ...committed, value: committed.value.value, acquired: committed.value.acquired };
  } catch (err) {
    if (!(err instanceof PoolFullAtCommitError)) throw err;
    return { ...(await store.update(chatId, fn, options)), acquired: undefined };
  }
}
