/**
 * The spec's "Heartbeat loop" and "Heartbeat cleanup loop", as the two database calls a worker's
 * timer makes. Renewing a heartbeat never advances snapshot_version and publishes nothing.
 *
 * renewHeartbeats: one transaction of two statements.
 *  1. set lock_timeout and statement_timeout (local to the transaction) and take both pools'
 *     admission locks, root then subagent, in one statement (its select list runs left to right:
 *     the timeouts are set before the first lock wait). In shared mode: a renewal must exclude
 *     admission, which takes its pool's lock exclusively, but not other renewals. In Coder's
 *     chatd one worker renews all its runners in one tick; here every chat's object renews its
 *     own lease, so with an exclusive lock 1,000 running chats would queue their renewals one
 *     behind another, each holding the lock for a round trip (docs/hot-path.md "Heartbeats").
 *  2. the spec's renewal query, verbatim but for the threshold, a parameter here. It is a
 *     statement of its own so its statement_timestamp() is read after the locks are granted: "a
 *     lease that an admission counted as stale cannot be renewed afterwards".
 * The whole tick is also bounded on the client by `tickTimeoutMs` (a hung connection counts as a
 * failed tick). A tick that fails or times out throws; the caller renews nothing and cleans up
 * no runners ("the next tick retries"). A late COMMIT after a client-side timeout can only have
 * extended leases that were fresh and still owned by their runners, which is harmless.
 */
import type { Pool } from "@neondatabase/serverless";
import type { Queryable } from "../../db/rows";
import { runTransaction, type TransactionObserver } from "../../db/transaction";
import { freshSinceSql } from "../../chats/lease-freshness";
import { ADMISSION_LOCK_KEYS, ADMISSION_LOCK_NAMESPACE, assertThreshold, timeoutSetting } from "./pools";

export interface RunnerRef {
  readonly chatId: string;
  readonly runnerId: string;
}

export interface RenewalResult {
  /** `runnerKey(chatId, runnerId)` of every renewed lease. */
  readonly renewed: ReadonlySet<string>;
  /** The runners whose lease was not renewed: stale, abandoned or taken over. Clean them up. */
  readonly lost: readonly RunnerRef[];
}

export interface RenewOptions {
  /** CHAT_STALE_THRESHOLD_MS (spec: 30 s): a lease older than this is never revived. */
  readonly staleThresholdMs: number;
  /** The whole tick's budget and its lock wait bound; the spec says a third of the stale threshold. */
  readonly tickTimeoutMs: number;
  /** Sees the finished transaction (statement counts in tests). */
  readonly observe?: TransactionObserver;
}

/** The tick did not finish within its budget; nothing is known about what it renewed. */
export class HeartbeatTickTimeoutError extends Error {
  override name = "HeartbeatTickTimeoutError";
  constructor(readonly timeoutMs: number) {
    super(`heartbeat tick did not finish within ${timeoutMs} ms`);
  }
}

/** The key of a lease in RenewalResult.renewed (UUIDs lowercased, as Postgres prints them). */
export function runnerKey(chatId: string, runnerId: string): string {
  return `${chatId.toLowerCase()}:${runnerId.toLowerCase()}`;
}

/** $1 lock_timeout, $2 statement_timeout. */
const LOCK_POOLS_SQL = `SELECT set_config('lock_timeout', $1, true), set_config('statement_timeout', $2, true),
  pg_advisory_xact_lock_shared(${ADMISSION_LOCK_NAMESPACE}::int4, ${ADMISSION_LOCK_KEYS.root}::int4)::text AS root_locked,
  pg_advisory_xact_lock_shared(${ADMISSION_LOCK_NAMESPACE}::int4, ${ADMISSION_LOCK_KEYS.subagent}::int4)::text AS subagent_locked`;

// Ticks take the root key first: keep the order if keys are ever added.
if (ADMISSION_LOCK_KEYS.root >= ADMISSION_LOCK_KEYS.subagent) throw new Error("admission lock keys out of order");

/** The spec's renewal query; $3 is the stale threshold in ms (the spec writes 30 seconds). The heartbeat bench runs it bare as its baseline. */
export const RENEW_SQL = `
  UPDATE chat_heartbeats hb
  SET heartbeat_at = statement_timestamp()
  FROM unnest($1::uuid[], $2::uuid[]) AS runners(chat_id, runner_id)
  JOIN chats c
    ON c.id = runners.chat_id
   AND c.runner_id = runners.runner_id
   AND c.worker_id IS NOT NULL
  WHERE hb.chat_id = runners.chat_id
    AND hb.runner_id = runners.runner_id
    AND hb.heartbeat_at > ${freshSinceSql(3)}
  RETURNING hb.chat_id, hb.runner_id`;

/** Renews the leases of `runners` that are fresh and still theirs; reports the others as lost. */
export async function renewHeartbeats(pool: Pool, runners: readonly RunnerRef[], options: RenewOptions): Promise<RenewalResult> {
  const { staleThresholdMs, tickTimeoutMs } = options;
  assertThreshold(staleThresholdMs);
  const timeout = timeoutSetting(tickTimeoutMs);
  if (runners.length === 0) return { renewed: new Set(), lost: [] };

  const tick = runTransaction(
    pool,
    async (t) => {
      await t.query(LOCK_POOLS_SQL, [timeout, timeout]);
      return t.queryThenCommit<{ chat_id: string; runner_id: string }>(RENEW_SQL, [
        runners.map((r) => r.chatId),
        runners.map((r) => r.runnerId),
        staleThresholdMs,
      ]);
    },
    options.observe,
  );
  const rows = await withDeadline(tick, tickTimeoutMs);
  const renewed = new Set(rows.map((row) => runnerKey(row.chat_id, row.runner_id)));
  const lost = runners.filter((r) => !renewed.has(runnerKey(r.chatId, r.runnerId)));
  return { renewed, lost };
}

/** "removes stale heartbeat rows"; returns how many. No lock: a stale row holds no slot. */
export async function cleanupHeartbeats(db: Queryable, staleThresholdMs: number): Promise<number> {
  assertThreshold(staleThresholdMs);
  const { rows } = await db.query(
    `WITH gone AS (
       DELETE FROM chat_heartbeats
       WHERE heartbeat_at < now() - $1::int * interval '1 millisecond'
       RETURNING 1
     ) SELECT count(*)::int AS n FROM gone`,
    [staleThresholdMs],
  );
  return Number(rows[0]?.n ?? 0);
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HeartbeatTickTimeoutError(ms)), ms);
  });
  // The losing side must not surface as an unhandled rejection.
  work.catch(() => {});
  return Promise.race([work, deadline]).finally(() => {
    if (timer !== undefined) clearTimeout(timer);
  });
}
