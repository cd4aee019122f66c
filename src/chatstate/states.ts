/**
 * The spec's execution and ownership states ("Core state machine" > "Execution states").
 * `STATE_TABLE` is the spec's table as data; `classify` reads a chat row through it.
 */

export const CHAT_STATUSES = ["waiting", "running", "interrupting", "requires_action", "error"] as const;
export type ChatStatus = (typeof CHAT_STATUSES)[number];

/** The states an existing, valid chat can be in (the spec's 13 minus N). */
export const EXECUTION_STATES = ["W", "E0", "E1", "R0", "R1", "I0", "I1", "A0", "A1", "XW", "XE0", "XE1"] as const;
export type ExecutionState = (typeof EXECUTION_STATES)[number];

/**
 * N: "Chat does not exist", the input of Create. Invalid: a row matching no line of the table,
 * the input of ReconcileInvalidState. Neither is ever a landing state.
 */
export const PSEUDO_STATES = ["N", "Invalid"] as const;
export type PseudoState = (typeof PSEUDO_STATES)[number];

/** What `classify` returns, and what a transition can start from. */
export type ClassifiedState = ExecutionState | PseudoState;
export const CLASSIFIED_STATES: readonly ClassifiedState[] = ["N", ...EXECUTION_STATES, "Invalid"];

export interface StateRow {
  readonly status: ChatStatus;
  /** Whether chat_queued_messages holds at least one row for the chat. */
  readonly queued: boolean;
  readonly archived: boolean;
}

/** The spec's table: status, queue, archived for each state. Any other combination is Invalid. */
export const STATE_TABLE: Readonly<Record<ExecutionState, StateRow>> = {
  W: { status: "waiting", queued: false, archived: false },
  E0: { status: "error", queued: false, archived: false },
  E1: { status: "error", queued: true, archived: false },
  R0: { status: "running", queued: false, archived: false },
  R1: { status: "running", queued: true, archived: false },
  I0: { status: "interrupting", queued: false, archived: false },
  I1: { status: "interrupting", queued: true, archived: false },
  A0: { status: "requires_action", queued: false, archived: false },
  A1: { status: "requires_action", queued: true, archived: false },
  XW: { status: "waiting", queued: false, archived: true },
  XE0: { status: "error", queued: false, archived: true },
  XE1: { status: "error", queued: true, archived: true },
};

export function statusOf(state: ExecutionState): ChatStatus {
  return STATE_TABLE[state].status;
}

export function hasQueue(state: ExecutionState): boolean {
  return STATE_TABLE[state].queued;
}

export function isArchived(state: ExecutionState): boolean {
  return STATE_TABLE[state].archived;
}

/** "is in a runnable execution state, meaning one of: R0, R1, I0, I1, A0, A1" (Acquisition loop). */
export const RUNNABLE_STATES = ["R0", "R1", "I0", "I1", "A0", "A1"] as const satisfies readonly ExecutionState[];

export function isRunnable(state: ClassifiedState): boolean {
  return (RUNNABLE_STATES as readonly ClassifiedState[]).includes(state);
}

export const ERROR_STATES = ["E0", "E1"] as const satisfies readonly ExecutionState[];
export const REQUIRES_ACTION_STATES = ["A0", "A1"] as const satisfies readonly ExecutionState[];

/** U: worker_id is null; O: worker_id is not null. */
export const OWNERSHIP_STATES = ["U", "O"] as const;
export type OwnershipState = (typeof OWNERSHIP_STATES)[number];
