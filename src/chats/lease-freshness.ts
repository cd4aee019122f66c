/**
 * A fresh lease, as SQL: the chat row is owned (worker_id and runner_id set) and a heartbeat row
 * for its current (chat_id, runner_id) is newer than the stale threshold. Its negation is the
 * spec's "doesn't have an owner, meaning worker_id is null, or its heartbeat is expired".
 *
 * One definition for the chat store's commit writes (which answer whether the lease is fresh, so a
 * runnable chat nobody owns gets its wake hint) and the acquisition loop's admission, sweep and
 * counts (src/chat-worker/leases). Time is `statement_timestamp()`, as in the spec's renewal query.
 */

/** `$thresholdParam` (ms, int) back from statement_timestamp(). */
export function freshSinceSql(thresholdParam: number): string {
  return `statement_timestamp() - $${thresholdParam}::int * interval '1 millisecond'`;
}

/**
 * The chat row `alias` holds a fresh lease. `stagedHeartbeatCte` names a CTE of the same statement
 * that upserts a heartbeat (returning runner_id): the statement's subqueries cannot see that row
 * in the table, so the CTE's row counts as the fresh one.
 */
export function leaseFreshSql(alias: string, thresholdParam: number, stagedHeartbeatCte?: string): string {
  const staged =
    stagedHeartbeatCte === undefined ? "" : `EXISTS (SELECT 1 FROM ${stagedHeartbeatCte} sh WHERE sh.runner_id = ${alias}.runner_id) OR `;
  return `(${alias}.worker_id IS NOT NULL AND ${alias}.runner_id IS NOT NULL AND (${staged}EXISTS (
      SELECT 1 FROM chat_heartbeats lease
      WHERE lease.chat_id = ${alias}.id AND lease.runner_id = ${alias}.runner_id
        AND lease.heartbeat_at > ${freshSinceSql(thresholdParam)})))`;
}
