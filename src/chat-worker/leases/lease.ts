/**
 * The two predicates the acquisition loop is built on, as SQL fragments shared by admission,
 * the sweep and the counts:
 * - runnable: "one of: R0, R1, I0, I1, A0, A1", i.e. a runnable status on an unarchived chat
 *   (the queue only splits R0 from R1 and so on; no runnable status is Invalid when unarchived);
 * - a fresh lease: worker_id and runner_id set and a heartbeat row for the current
 *   (chat_id, runner_id) newer than the stale threshold. Its negation is the spec's "doesn't have
 *   an owner, meaning worker_id is null, or its heartbeat is expired".
 *
 * Time is `statement_timestamp()` everywhere, as in the spec's renewal query: under the
 * admission lock it is read after the lock was granted.
 */
import { RUNNABLE_STATES, STATE_TABLE, type ChatStatus } from "../../chatstate/index";

/** The statuses of RUNNABLE_STATES (derived from the spec's table, not restated). */
export const RUNNABLE_STATUSES: readonly ChatStatus[] = [...new Set(RUNNABLE_STATES.map((s) => STATE_TABLE[s].status))];

// The SQL below says "runnable status AND NOT archived"; that is exact only if no runnable state is archived.
if (RUNNABLE_STATES.some((s) => STATE_TABLE[s].archived))
  throw new Error("a runnable state is archived: lease.ts's runnable predicate is wrong");

/** `alias` is runnable. `$statusesParam` must hold RUNNABLE_STATUSES as a text[]. */
export function runnableSql(alias: string, statusesParam: number): string {
  return `(${alias}.status = ANY($${statusesParam}::text[]) AND NOT ${alias}.archived)`;
}

/** `$thresholdParam` (ms, int) back from statement_timestamp(). */
export function freshSinceSql(thresholdParam: number): string {
  return `statement_timestamp() - $${thresholdParam}::int * interval '1 millisecond'`;
}

/** The chat `alias` is owned and its current runner's heartbeat is fresh. */
export function leaseFreshSql(alias: string, thresholdParam: number): string {
  return `(${alias}.worker_id IS NOT NULL AND ${alias}.runner_id IS NOT NULL AND EXISTS (
      SELECT 1 FROM chat_heartbeats lease
      WHERE lease.chat_id = ${alias}.id AND lease.runner_id = ${alias}.runner_id
        AND lease.heartbeat_at > ${freshSinceSql(thresholdParam)}))`;
}

/** Pool membership of `alias`; `$isRootParam` is a boolean (true: root pool). */
export function inPoolSql(alias: string, isRootParam: number): string {
  return `((${alias}.parent_chat_id IS NULL) = $${isRootParam}::boolean)`;
}
