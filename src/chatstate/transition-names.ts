/** The names of the spec's transitions: execution transitions, and the two that only move ownership. */
export const EXECUTION_TRANSITION_NAMES = [
  "Create",
  "SetArchived",
  "SendMessage",
  "EditMessage",
  "DeleteQueuedMessage",
  "PromoteQueuedMessage",
  "Interrupt",
  "CompleteRequiresAction",
  "RequestCompaction",
  "ClearContext",
  "CommitStep",
  "EnterRequiresAction",
  "FinishInterruption",
  "RecordGenerationAttempt",
  "RecordRetryState",
  "FinishTurn",
  "FinishError",
  "CancelRequiresAction",
  "ReconcileInvalidState",
] as const;
export type ExecutionTransitionName = (typeof EXECUTION_TRANSITION_NAMES)[number];

/** Acquire and Abandon "only affect ownership state ... fully orthogonal to the execution state transitions". */
export const OWNERSHIP_TRANSITION_NAMES = ["Acquire", "Abandon"] as const;
export type OwnershipTransitionName = (typeof OWNERSHIP_TRANSITION_NAMES)[number];

export const TRANSITION_NAMES = [...EXECUTION_TRANSITION_NAMES, ...OWNERSHIP_TRANSITION_NAMES] as const;
export type TransitionName = (typeof TRANSITION_NAMES)[number];
