import type { ClassifiedState } from "./states";
import { EXECUTION_STATES, STATE_TABLE } from "./states";
import type { ExecutionTransitionName } from "./transitions";
import { ChatNotFoundError, InvalidStateError } from "./errors";

/**
 * The columns that decide the execution state. `status` is a plain string because rows written before
 * the state machine existed may carry statuses outside ChatStatus; those classify as Invalid.
 */
export interface ClassifiableChat {
  readonly status: string;
  readonly archived: boolean;
}

/**
 * A chat's execution state: N for no row, the matching line of the spec's table, or Invalid for any
 * other combination (archived while running, waiting with a queue, XW with a queue, unknown status...).
 */
export function classify(row: ClassifiableChat | null | undefined, queueLength: number): ClassifiedState {
  if (!Number.isInteger(queueLength) || queueLength < 0) {
    throw new RangeError(`queueLength must be a non-negative integer, got ${queueLength}`);
  }
  if (row === null || row === undefined) return "N";
  const queued = queueLength > 0;
  const match = EXECUTION_STATES.find((state) => {
    const line = STATE_TABLE[state];
    return line.status === row.status && line.archived === row.archived && line.queued === queued;
  });
  return match ?? "Invalid";
}

/**
 * Classifies a locked row as the input of `transition`, turning the pseudo-states into the errors
 * callers report: N is "not found" for everything but Create, and Invalid is refused for everything
 * but ReconcileInvalidState. Whether the transition is allowed from a real state is `landing`'s call.
 */
export function classifyForTransition(
  transition: ExecutionTransitionName,
  chatId: string,
  row: ClassifiableChat | null | undefined,
  queueLength: number,
): ClassifiedState {
  const state = classify(row, queueLength);
  if (state === "N" && transition !== "Create") throw new ChatNotFoundError(chatId);
  if (state === "Invalid" && transition !== "ReconcileInvalidState" && row) {
    throw new InvalidStateError({ chatId, status: row.status, archived: row.archived, queueLength });
  }
  return state;
}
