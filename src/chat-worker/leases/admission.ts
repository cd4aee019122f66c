/**
 * Acquire with admission: the spec's "Acquisition loop" (lock the chat, recheck that it is
 * runnable and has no fresh lease, apply Acquire) with the "Concurrent agent limiter" inside the
 * same transaction ("admission runs inside the acquisition transaction, before Acquire, under a
 * Postgres advisory lock held until the transaction commits").
 *
 * One transaction, ChatStore.updateGuarded's, in this order (steps 1 and 2 go out together, in
 * one round trip):
 *  1. probe (one statement): read the chat's pool, whether it is runnable and whether its lease is
 *     fresh, without locks; and only when it looks acquirable and its pool has a limit, set
 *     `lock_timeout` and take the pool's advisory lock, in the same statement (the select list is
 *     evaluated left to right, so the timeout is in force when the lock wait starts). It also
 *     leaves, for step 2, whether the row is to be locked at all (lockRowIfSql). A chat that
 *     is not runnable, or freshly owned, is answered without waiting for the lock: a transition
 *     that later makes it acquirable publishes the ownership hint, and the sweep catches leases
 *     that go stale. The pool is needed before the row lock so locks are always taken pool
 *     first, then row (a row lock held while queueing for the pool lock would block the chat's
 *     own transitions, interrupts included, for up to the lock timeout).
 *  2. the store's row lock: lock the row, bump snapshot_version and count the queue (a second
 *     statement counts it again when a commit on the chat landed while the lock was awaited);
 *     when the probe answered, it matches no row and locks nothing.
 *  3. Acquire (the existing transition: ownership plus the heartbeat upsert) and the commit
 *     write, one statement, which publishes chat:update after COMMIT like every transition.
 *  4. recheck under both locks, in the commit write's RETURNING (ChatTx.checkAtCommit; skipped
 *     when the chat has no owner and its pool no limit): the lease of the previous runner ("A
 *     takeover of a chat whose lease expired rechecks the lease under the lock, because a
 *     heartbeat renewal may have extended it since") and the pool's slots in use: chats of the
 *     pool owned with a fresh heartbeat, whatever their execution state, this chat excluded; and,
 *     with TenantShares, those of them with the chat's owner and with its organization. That
 *     statement starts after the row lock is granted, so its snapshot sees every commit up to then
 *     (a lease check inside the locking statement would read the heartbeat table as of before the
 *     lock wait); a refusal raises inside that statement (chatd_check), so the COMMIT that goes out
 *     with it never runs and the write is rolled back.
 * Runnability is rechecked on the locked row in memory (no statement).
 *
 * Every outcome other than "acquired" after step 2 throws to roll back, so a refused or
 * unneeded acquisition leaves no snapshot bump, no write and no notification.
 *
 * acquire-in-command.ts is the same Acquire inside the transaction of a command that makes the
 * chat runnable, with the checks below (historyAtCommit, recheckAtCommit).
 *
 * Statements (BEGIN/COMMIT excluded), one more after a row lock wait that a commit ended: acquired
 * 3; refused for capacity or found freshly owned under the row lock 3, then ROLLBACK; answered by
 * the probe (not runnable, fresh lease, not found) 2, the row lock having matched nothing; refused
 * for lock_timeout: the statement whose lock wait timed out; found not runnable under the row lock
 * 2, then ROLLBACK.
 */
import { ChatNotFoundError, isRunnable } from "../../chatstate/index";
import type { ChatTx } from "../../chats/chat-tx";
import type { CommitCheck } from "../../chats/commit-write";
import { lockRowIfSql } from "../../chats/row-lock";
import type { ChatMessageRow, ChatRow } from "../../db/schema/chats";
import type { Answered, ChatStore } from "../../chats/store";
import type { RawRow } from "../../db/rows";
import { acquire } from "../../chats/transitions/ownership";
import { historyFromJson, historyJsonSql, turnModelsAtCommit } from "../fenced-db";
import type { TurnModelRows } from "../../model-configs/turn-model-rows";
import { freshSinceSql, leaseFreshSql } from "../../chats/lease-freshness";
import { RUNNABLE_STATUSES, runnableSql } from "./lease";
import {
  ADMISSION_LOCK_KEYS,
  ADMISSION_LOCK_NAMESPACE,
  assertLimits,
  assertThreshold,
  DEFAULT_ADMISSION_LOCK_TIMEOUT_MS,
  assertShares,
  isLimited,
  isLockTimeout,
  type PoolAdmission,
  type PoolLimits,
  poolAdmission,
  type TenantShares,
  timeoutSetting,
} from "./pools";
import { ownershipOf } from "../../chatstate/chat-versions";

export type AcquireOutcome =
  | {
      readonly kind: "acquired";
      /** The committed row: worker_id and runner_id are the caller's. */
      readonly chat: ChatRow;
      /** The chat had an owner whose lease had expired. */
      readonly takenOver: boolean;
      /** The history as the commit write saw it, under the row lock (`withHistory`). */
      readonly history?: ChatMessageRow[];
      /** The turn's model candidates, read by the same statement (`withHistory`). */
      readonly models?: TurnModelRows;
    }
  /** Nothing was written: the chat stays unowned (or stale-owned) and is retried later. */
  | { readonly kind: "refused"; readonly reason: FullReason | "lock_timeout" }
  /** Nothing was written, and no acquisition is due. */
  | { readonly kind: "not_needed"; readonly reason: "not_runnable" | "owned" | "not_found" };

/** What was full: the pool, or the share of the chat's owner or organization (TenantShares). */
export type FullReason = "capacity" | "user_share" | "organization_share";

export interface AcquireChatOptions {
  readonly workerId: string;
  /** A fresh random UUID per acquisition ("The runner_id is a random UUID generated by the acquisition loop"). */
  readonly runnerId: string;
  /** Deployment-wide slots per pool, 0 = unlimited (CHAT_ROOT_CONCURRENCY, CHAT_SUBAGENT_CONCURRENCY). */
  readonly limits: PoolLimits;
  /** The most of each pool one user and one organization may hold (CHAT_*_CONCURRENCY_PER_*). */
  readonly shares: TenantShares;
  /** A heartbeat older than this is stale (CHAT_STALE_THRESHOLD_MS; spec: 30 s). */
  readonly staleThresholdMs: number;
  /** The longest wait for any lock in the transaction when the pool has a limit (spec: 5 s). */
  readonly lockTimeoutMs?: number;
  /**
   * Also return the chat's history, read by the commit write under the row lock, and the turn's
   * model candidates: the new runner's first task starts from them instead of reads of its own (two
   * round trips fewer before the model).
   */
  readonly withHistory?: boolean;
  /**
   * A fresh lease held under this worker id is a previous instance's of the chat's object, cut off
   * by a restart: take it over now, as a stale one (durable-objects/chat-object/incarnation.ts).
   */
  readonly reclaimFrom?: string;
}

/** Carries a non-acquired outcome out of the transaction callback, rolling it back. */
class Settled extends Error {
  constructor(readonly outcome: AcquireOutcome) {
    super(`acquisition settled: ${outcome.kind}`);
  }
}

const LOCK_KEY_SQL = `CASE WHEN is_root THEN ${ADMISSION_LOCK_KEYS.root} ELSE ${ADMISSION_LOCK_KEYS.subagent} END`;

/**
 * $1 chat id, $2 runnable statuses, $3 stale threshold ms, $4 and $5 whether admission to the root
 * and the subagent pool counts slots (1) or not (0), $6 lock_timeout setting, $7 the worker id whose
 * fresh lease does not count (reclaimFrom; null: every fresh lease counts).
 */
const PROBE_SQL = `
  WITH probe AS (
    SELECT c.parent_chat_id IS NULL AS is_root, ${runnableSql("c", 2)} AS runnable,
      (${leaseFreshSql("c", 3)} AND c.worker_id IS DISTINCT FROM $7::uuid) AS lease_fresh
    FROM chats c WHERE c.id = $1
  ), gate AS (
    SELECT probe.*, (runnable AND NOT lease_fresh AND CASE WHEN is_root THEN $4::int ELSE $5::int END > 0) AS admit FROM probe
  )
  SELECT is_root, runnable, lease_fresh, admit,
    ${lockRowIfSql("runnable AND NOT lease_fresh")} AS lock_row,
    CASE WHEN admit THEN set_config('lock_timeout', $6, true) END AS lock_timeout,
    CASE WHEN admit THEN pg_advisory_xact_lock(${ADMISSION_LOCK_NAMESPACE}::int4, ${LOCK_KEY_SQL}::int4)::text END AS locked
  FROM gate`;

type ProbeRow = {
  is_root: boolean;
  runnable: boolean;
  lease_fresh: boolean;
  admit: boolean;
};

/**
 * The history in the commit write's RETURNING. That statement starts after the row lock was
 * granted, and every history write takes that lock first, so it reads the history of the row it
 * writes. Checks nothing.
 */
export function historyAtCommit(found: (rows: ChatMessageRow[]) => void): CommitCheck {
  return {
    columns: () => `${historyJsonSql("chats.id")} AS history`,
    read: (raw) => found(historyFromJson(raw.history)),
  };
}

/**
 * Step 3, checked by the commit write itself (`chats` is the row as written): the previous
 * runner's lease is not fresh, and the pool has a slot free besides this chat, within the shares
 * of the chat's owner and organization. Any failure rolls the acquisition back with its Settled
 * answer.
 */
export function recheckAtCommit(
  previousRunnerId: string | null,
  admission: PoolAdmission,
  staleThresholdMs: number,
  full: (reason: FullReason) => Error = (reason) => new Settled({ kind: "refused", reason }),
): CommitCheck {
  return {
    conditions: (bind) => {
      const conditions = [];
      if (previousRunnerId !== null) {
        conditions.push({
          holds: `NOT EXISTS (SELECT 1 FROM chat_heartbeats lease WHERE lease.chat_id = chats.id AND lease.runner_id = $${bind(previousRunnerId)}
              AND lease.heartbeat_at > ${freshSinceSql(bind(staleThresholdMs))})`,
          failure: () => new Settled({ kind: "not_needed", reason: "owned" }),
        });
      }
      const slotsHeld = (also: string) =>
        `(SELECT count(*)::int FROM chat_heartbeats h JOIN chats c ON c.id = h.chat_id AND c.runner_id = h.runner_id
              WHERE h.heartbeat_at > ${freshSinceSql(bind(staleThresholdMs))} AND c.worker_id IS NOT NULL AND c.id <> chats.id
                AND (c.parent_chat_id IS NULL) = (chats.parent_chat_id IS NULL)${also})`;
      if (admission.slots > 0) conditions.push({ holds: `${slotsHeld("")} < $${bind(admission.slots)}`, failure: () => full("capacity") });
      if (admission.perUser > 0) {
        conditions.push({
          holds: `${slotsHeld(" AND c.owner_id = chats.owner_id")} < $${bind(admission.perUser)}`,
          failure: () => full("user_share"),
        });
      }
      if (admission.perOrganization > 0) {
        conditions.push({
          holds: `${slotsHeld(" AND c.organization_id = chats.organization_id")} < $${bind(admission.perOrganization)}`,
          failure: () => full("organization_share"),
        });
      }
      return conditions;
    },
  };
}

/** Acquires `chatId` for (workerId, runnerId) if it is runnable, has no fresh lease, and its pool has a free slot. */
export async function acquireChat(store: ChatStore, chatId: string, options: AcquireChatOptions): Promise<AcquireOutcome> {
  const { workerId, runnerId, limits, shares, staleThresholdMs } = options;
  const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_ADMISSION_LOCK_TIMEOUT_MS;
  assertLimits(limits);
  assertShares(shares);
  assertThreshold(staleThresholdMs);
  const limited = (pool: "root" | "subagent") => (isLimited(poolAdmission(limits, shares, pool)) ? 1 : 0);
  // The chat's pool admission, as the probe found it.
  let admission: PoolAdmission | undefined;
  let history: ChatMessageRow[] | undefined;
  let models: TurnModelRows | undefined;
  const probe = {
    text: PROBE_SQL,
    values: [
      chatId,
      RUNNABLE_STATUSES,
      staleThresholdMs,
      limited("root"),
      limited("subagent"),
      timeoutSetting(lockTimeoutMs),
      options.reclaimFrom ?? null,
    ],
    // As the probe's lock_row decided: the row is locked only when it is runnable with no fresh lease.
    answer: (raw: RawRow | undefined): Answered<AcquireOutcome> | undefined => {
      const row = raw as ProbeRow | undefined;
      if (row === undefined) return { answer: { kind: "not_needed", reason: "not_found" } };
      if (!row.runnable) return { answer: { kind: "not_needed", reason: "not_runnable" } };
      if (row.lease_fresh) return { answer: { kind: "not_needed", reason: "owned" } };
      admission = poolAdmission(limits, shares, row.is_root ? "root" : "subagent");
      return undefined;
    },
  };
  try {
    const result = await store.updateGuarded(
      chatId,
      probe,
      async (tx) => {
        if (!admission) throw new Error(`chat ${chatId}: locked without the probe's answer`);
        const owned = admit(tx, admission, staleThresholdMs, options.reclaimFrom ?? null);
        await acquire(tx, { workerId, runnerId });
        if (options.withHistory) {
          tx.checkAtCommit(historyAtCommit((rows) => (history = rows)));
          tx.checkAtCommit(turnModelsAtCommit((rows) => (models = rows)));
        }
        return owned;
      },
      { staleThresholdMs },
    );
    if ("answer" in result) return result.answer;
    return { kind: "acquired", chat: result.chat, takenOver: result.value, ...(history ? { history } : {}), ...(models ? { models } : {}) };
  } catch (err) {
    if (err instanceof Settled) return err.outcome;
    // The row vanished between the probe and the lock.
    if (err instanceof ChatNotFoundError && err.chatId === chatId) return { kind: "not_needed", reason: "not_found" };
    if (isLockTimeout(err)) return { kind: "refused", reason: "lock_timeout" };
    throw err;
  }
}

/**
 * The runnability recheck, on the locked row (throws Settled to roll back), and step 3 staged for
 * the commit write. Returns whether the chat had an owner.
 */
function admit(tx: ChatTx, admission: PoolAdmission, staleThresholdMs: number, reclaimFrom: string | null): boolean {
  if (!isRunnable(tx.state())) throw new Settled({ kind: "not_needed", reason: "not_runnable" });
  const owned = ownershipOf(tx.chat) === "O";
  // The previous runner's lease is rechecked unless it was this worker's own earlier instance's.
  const previousRunnerId = owned && tx.chat.workerId !== reclaimFrom ? tx.chat.runnerId : null;
  if (previousRunnerId !== null || isLimited(admission)) tx.checkAtCommit(recheckAtCommit(previousRunnerId, admission, staleThresholdMs));
  return owned;
}
