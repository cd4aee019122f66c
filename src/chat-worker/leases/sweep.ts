/**
 * The reads behind wake-ups and the runner manager's database sync:
 * - findRunnableUnowned: the acquisition loop's candidate query ("every chat that is in a runnable
 *   execution state and doesn't have an owner, meaning worker_id is null, or its heartbeat is
 *   expired"), oldest `updated_at` first. The Cron sweep wakes these chats' objects; with a pool
 *   filter it is also "the oldest waiting chats" a chat wakes when it releases a slot (a refused
 *   chat is exactly a runnable chat without a fresh lease). Archived chats are never runnable.
 *   Both answer in fair order across owners (docs/fairness.md), not strictly oldest first.
 * - readChatsForSync: the database sync loop's single query, the runner event's fields.
 * Both are plain reads without locks: what they find is a hint, rechecked under the row lock by
 * acquireChat and by the runner's fences.
 */
import type { ChatStatus } from "../../chatstate/index";
import type { Queryable } from "../../db/rows";
import { freshSinceSql, leaseFreshSql } from "../../chats/lease-freshness";
import { inPoolSql, RUNNABLE_STATUSES, runnableSql } from "./lease";
import { assertThreshold, type PoolAdmission, type PoolName } from "./pools";

export interface FindRunnableOptions {
  /** CHAT_STALE_THRESHOLD_MS: an owner whose heartbeat is older does not count. */
  readonly staleThresholdMs: number;
  /** At most this many ids. */
  readonly limit: number;
  /** Only this pool's chats (root: parent_chat_id IS NULL). Both pools when omitted. */
  readonly pool?: PoolName;
}

/**
 * Fair order among the waiting: each owner's oldest chat first, then each owner's second, and so
 * on (oldest `updated_at` first within a round, ties by id), so one user's backlog does not fill
 * the front of the line ahead of another's first turn.
 */
const FAIR_ORDER_SQL = "row_number() OVER (PARTITION BY c.owner_id ORDER BY c.updated_at, c.id), c.updated_at, c.id";

/** Ids of runnable chats without a fresh lease, in fair order (FAIR_ORDER_SQL). */
export async function findRunnableUnowned(db: Queryable, options: FindRunnableOptions): Promise<string[]> {
  assertThreshold(options.staleThresholdMs);
  if (!Number.isInteger(options.limit) || options.limit < 0)
    throw new RangeError(`limit must be a whole number >= 0, got ${options.limit}`);
  if (options.limit === 0) return [];
  const values: unknown[] = [RUNNABLE_STATUSES, options.staleThresholdMs, options.limit];
  let poolFilter = "";
  if (options.pool !== undefined) {
    values.push(options.pool === "root");
    poolFilter = `AND ${inPoolSql("c", values.length)}`;
  }
  const { rows } = await db.query(
    `SELECT c.id FROM chats c
     WHERE ${runnableSql("c", 1)} AND NOT ${leaseFreshSql("c", 2)} ${poolFilter}
     ORDER BY ${FAIR_ORDER_SQL}
     LIMIT $3`,
    values,
  );
  return rows.map((row) => row.id as string);
}

/**
 * "wakes the oldest waiting chats at once": the runnable chats of `pool` without a fresh lease, in
 * fair order, leaving out those whose owner or organization already holds its share of the pool
 * (their admission would be refused; their own release wakes them).
 */
export async function findWaitingForSlot(
  db: Queryable,
  options: { readonly pool: PoolName; readonly admission: PoolAdmission; readonly limit: number; readonly staleThresholdMs: number },
): Promise<string[]> {
  const { admission } = options;
  if (admission.perUser === 0 && admission.perOrganization === 0) return findRunnableUnowned(db, options);
  assertThreshold(options.staleThresholdMs);
  const { rows } = await db.query(
    `WITH held AS (
       SELECT c.owner_id, c.organization_id FROM chat_heartbeats h JOIN chats c ON c.id = h.chat_id AND c.runner_id = h.runner_id
       WHERE h.heartbeat_at > ${freshSinceSql(2)} AND c.worker_id IS NOT NULL AND ${inPoolSql("c", 4)}
     )
     SELECT c.id FROM chats c
     WHERE ${runnableSql("c", 1)} AND NOT ${leaseFreshSql("c", 2)} AND ${inPoolSql("c", 4)}
       AND ($5::int = 0 OR (SELECT count(*) FROM held WHERE held.owner_id = c.owner_id) < $5::int)
       AND ($6::int = 0 OR (SELECT count(*) FROM held WHERE held.organization_id = c.organization_id) < $6::int)
     ORDER BY ${FAIR_ORDER_SQL}
     LIMIT $3`,
    [RUNNABLE_STATUSES, options.staleThresholdMs, options.limit, options.pool === "root", admission.perUser, admission.perOrganization],
  );
  return rows.map((row) => row.id as string);
}

/** The spec's runner event ("Event shape") as the sync loop reads it. */
export interface ChatSyncRow {
  readonly chatId: string;
  readonly workerId: string | null;
  readonly runnerId: string | null;
  readonly snapshotVersion: number;
  readonly historyVersion: number;
  readonly generationAttempt: number;
  readonly archived: boolean;
  readonly status: ChatStatus;
}

/**
 * `SELECT ... FROM chats WHERE id = ANY($1::uuid[])`. A chat missing from the result was deleted
 * (its runners must stop). Order is unspecified; duplicate ids yield one row.
 */
export async function readChatsForSync(db: Queryable, chatIds: readonly string[]): Promise<ChatSyncRow[]> {
  if (chatIds.length === 0) return [];
  const { rows } = await db.query(
    `SELECT id, worker_id, runner_id, snapshot_version, history_version, generation_attempt, archived, status
     FROM chats WHERE id = ANY($1::uuid[])`,
    [[...chatIds]],
  );
  return rows.map((row) => ({
    chatId: row.id as string,
    workerId: (row.worker_id as string | null) ?? null,
    runnerId: (row.runner_id as string | null) ?? null,
    snapshotVersion: Number(row.snapshot_version),
    historyVersion: Number(row.history_version),
    generationAttempt: Number(row.generation_attempt),
    archived: row.archived as boolean,
    status: row.status as ChatStatus,
  }));
}
