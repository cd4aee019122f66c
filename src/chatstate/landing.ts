/**
 * What a landing writes on the chat row, by the rules every landing shares: status and archived
 * from the landing state's line of the spec's table, the leave-error rule, the one-shot
 * compaction marker, and the pending-action deadline (set by EnterRequiresAction at `now` plus
 * the configured timeout, kept while the chat stays in A0/A1). Pure: ChatTx.land applies it.
 */
import { columnsFor, keepsCompactionRequest, leavesError, nextRequiresActionDeadline } from "./rules";
import type { ChatStatus, ClassifiedState, ExecutionState } from "./states";
import type { ExecutionTransitionName, VariantOf } from "./transitions";

/** The row columns a landing decides. */
export interface LandingColumns<Detail> {
  status: ChatStatus;
  archived: boolean;
  lastError: string | null;
  lastErrorDetail: Detail | null;
  compactionRequestedAt: Date | null;
  requiresActionDeadlineAt: Date | null;
}

export interface Landing<T extends ExecutionTransitionName> {
  transition: T;
  from: ClassifiedState;
  to: ExecutionState;
  variant: VariantOf<T> | undefined;
  now: Date;
  requiresActionTimeoutMs: number;
}

export function landingColumns<T extends ExecutionTransitionName, Detail>(
  row: LandingColumns<Detail>,
  { transition, from, to, variant, now, requiresActionTimeoutMs }: Landing<T>,
): LandingColumns<Detail> {
  const keepsCompaction =
    transition === "SendMessage"
      ? keepsCompactionRequest("SendMessage", variant as VariantOf<"SendMessage">)
      : keepsCompactionRequest(transition as Exclude<ExecutionTransitionName, "SendMessage">);
  const clearsError = leavesError(from, to, transition);
  return {
    ...columnsFor(to),
    lastError: clearsError ? null : row.lastError,
    lastErrorDetail: clearsError ? null : row.lastErrorDetail,
    compactionRequestedAt: keepsCompaction ? row.compactionRequestedAt : null,
    requiresActionDeadlineAt:
      transition === "EnterRequiresAction"
        ? new Date(now.getTime() + requiresActionTimeoutMs)
        : nextRequiresActionDeadline(transition, to, row.requiresActionDeadlineAt, now),
  };
}
