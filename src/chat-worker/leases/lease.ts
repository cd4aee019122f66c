/**
 * The two predicates the acquisition loop is built on, as SQL fragments shared by admission,
 * the sweep and the counts (the second is the chat store's own, since its commit writes answer it):
 * - runnable: "one of: R0, R1, I0, I1, A0, A1", i.e. a runnable status on an unarchived chat
 *   (the queue only splits R0 from R1 and so on; no runnable status is Invalid when unarchived);
 * - a fresh lease (src/chats/lease-freshness.ts): worker_id and runner_id set and a heartbeat row
 *   for the current (chat_id, runner_id) newer than the stale threshold.
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

/** Pool membership of `alias`; `$isRootParam` is a boolean (true: root pool). */
export function inPoolSql(alias: string, isRootParam: number): string {
  return `((${alias}.parent_chat_id IS NULL) = $${isRootParam}::boolean)`;
}
