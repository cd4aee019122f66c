/**
 * The spec's transition diagrams as data, with lookup helpers.
 * "A transition between input state A and output state B is allowed only if it's listed in the
 * diagram below. If a transition is not allowed, the core state machine implementation must reject it."
 */
import type { ClassifiedState, ExecutionState, OwnershipState } from "./states";
import { CLASSIFIED_STATES } from "./states";
import { TransitionNotAllowedError, TransitionVariantError } from "./errors";
import { EXECUTION_TRANSITION_NAMES, type ExecutionTransitionName, type OwnershipTransitionName } from "./transition-names";

export * from "./transition-names";

/**
 * Variants split one transition into the diagram's separately labelled edges. Words are the spec's.
 * Request variants are chosen by the caller (the archived flag, busy_behavior, empty content);
 * outcome variants follow from the queue after the transition has run.
 */
export const TRANSITION_VARIANTS = {
  Create: ["with user message", "empty content"],
  SetArchived: ["archive", "unarchive"],
  SendMessage: ["queue", "interrupt"],
  DeleteQueuedMessage: ["removed last queued", "queue still non-empty"],
  PromoteQueuedMessage: ["promoted last queued", "queue still non-empty"],
  FinishTurn: ["queue empty", "promoted last queued", "queue still non-empty after promoting head"],
  FinishInterruption: ["promoted last queued", "queue still non-empty after promoting head"],
  ReconcileInvalidState: ["no queued messages", "queued messages"],
} as const satisfies Partial<Record<ExecutionTransitionName, readonly string[]>>;

type VariantTable = typeof TRANSITION_VARIANTS;
export type VariantOf<T extends ExecutionTransitionName> = T extends keyof VariantTable ? VariantTable[T][number] : never;

export const REQUEST_VARIANT_TRANSITIONS = ["Create", "SetArchived", "SendMessage"] as const satisfies readonly (keyof VariantTable)[];
export type RequestVariantTransition = (typeof REQUEST_VARIANT_TRANSITIONS)[number];

export function variantsOf<T extends ExecutionTransitionName>(transition: T): readonly VariantOf<T>[] {
  const table: Partial<Record<ExecutionTransitionName, readonly string[]>> = TRANSITION_VARIANTS;
  return (table[transition] ?? []) as readonly VariantOf<T>[];
}

export function hasRequestVariant(transition: ExecutionTransitionName): transition is RequestVariantTransition {
  return (REQUEST_VARIANT_TRANSITIONS as readonly ExecutionTransitionName[]).includes(transition);
}

export type Edge = {
  [T in ExecutionTransitionName]: {
    readonly transition: T;
    readonly from: ClassifiedState;
    readonly to: ExecutionState;
    readonly variant?: VariantOf<T>;
  };
}[ExecutionTransitionName];

export type EdgeOf<T extends ExecutionTransitionName> = Extract<Edge, { transition: T }>;

function edge<T extends ExecutionTransitionName>(from: ClassifiedState, to: ExecutionState, transition: T, variant?: VariantOf<T>): Edge {
  return (variant === undefined ? { transition, from, to } : { transition, from, to, variant }) as Edge;
}

/**
 * Every edge of the spec's execution diagram, read "from --> to: transition / variant", plus
 * N --> W: Create (empty content) from the spec's TODO (#27111). The diagram writes some SendMessage
 * edges without a variant; the HTTP section lists both busy behaviours for each of those inputs.
 */
export const EDGES: readonly Edge[] = [
  edge("N", "R0", "Create", "with user message"),
  edge("N", "W", "Create", "empty content"),

  edge("W", "R0", "SendMessage", "queue"),
  edge("W", "R0", "SendMessage", "interrupt"),
  edge("W", "R0", "EditMessage"),
  edge("W", "R0", "RequestCompaction"),
  edge("W", "W", "ClearContext"),
  edge("W", "E0", "FinishError"),
  edge("W", "XW", "SetArchived", "archive"),

  edge("E0", "R0", "SendMessage", "queue"),
  edge("E0", "R0", "SendMessage", "interrupt"),
  edge("E0", "R0", "EditMessage"),
  edge("E0", "R0", "RequestCompaction"),
  edge("E0", "W", "ClearContext"),
  edge("E0", "XE0", "SetArchived", "archive"),

  edge("E1", "R1", "SendMessage", "queue"),
  edge("E1", "R1", "SendMessage", "interrupt"),
  edge("E1", "R0", "EditMessage"),
  edge("E1", "R1", "RequestCompaction"),
  edge("E1", "E0", "DeleteQueuedMessage", "removed last queued"),
  edge("E1", "E1", "DeleteQueuedMessage", "queue still non-empty"),
  edge("E1", "R0", "PromoteQueuedMessage", "promoted last queued"),
  edge("E1", "R1", "PromoteQueuedMessage", "queue still non-empty"),
  edge("E1", "XE1", "SetArchived", "archive"),

  edge("R0", "R0", "RecordGenerationAttempt"),
  edge("R0", "R0", "RecordRetryState"),
  edge("R0", "R0", "CommitStep"),
  edge("R0", "A0", "EnterRequiresAction"),
  edge("R0", "I0", "Interrupt"),
  edge("R0", "I1", "SendMessage", "interrupt"),
  edge("R0", "R0", "EditMessage"),
  edge("R0", "W", "FinishTurn", "queue empty"),
  edge("R0", "E0", "FinishError"),
  edge("R0", "R1", "SendMessage", "queue"),

  edge("R1", "R1", "RecordGenerationAttempt"),
  edge("R1", "R1", "RecordRetryState"),
  edge("R1", "R1", "CommitStep"),
  edge("R1", "A1", "EnterRequiresAction"),
  edge("R1", "I1", "Interrupt"),
  edge("R1", "I1", "SendMessage", "interrupt"),
  edge("R1", "R0", "EditMessage"),
  edge("R1", "E1", "FinishError"),
  edge("R1", "R1", "SendMessage", "queue"),
  edge("R1", "R0", "DeleteQueuedMessage", "removed last queued"),
  edge("R1", "R1", "DeleteQueuedMessage", "queue still non-empty"),
  edge("R1", "I1", "PromoteQueuedMessage"),
  edge("R1", "R0", "FinishTurn", "promoted last queued"),
  edge("R1", "R1", "FinishTurn", "queue still non-empty after promoting head"),

  edge("I0", "I1", "SendMessage", "queue"),
  edge("I0", "I1", "SendMessage", "interrupt"),
  edge("I0", "R0", "EditMessage"),
  edge("I0", "W", "FinishInterruption"),

  edge("I1", "I1", "SendMessage", "queue"),
  edge("I1", "I1", "SendMessage", "interrupt"),
  edge("I1", "R0", "EditMessage"),
  edge("I1", "I0", "DeleteQueuedMessage", "removed last queued"),
  edge("I1", "I1", "DeleteQueuedMessage", "queue still non-empty"),
  edge("I1", "I1", "PromoteQueuedMessage"),
  edge("I1", "R0", "FinishInterruption", "promoted last queued"),
  edge("I1", "R1", "FinishInterruption", "queue still non-empty after promoting head"),

  edge("A0", "R0", "CompleteRequiresAction"),
  edge("A0", "R0", "Interrupt"),
  edge("A0", "R0", "CancelRequiresAction"),
  edge("A0", "A1", "SendMessage", "queue"),
  edge("A0", "R1", "SendMessage", "interrupt"),
  edge("A0", "R0", "EditMessage"),

  edge("A1", "R1", "CompleteRequiresAction"),
  edge("A1", "R1", "Interrupt"),
  edge("A1", "R1", "CancelRequiresAction"),
  edge("A1", "A1", "SendMessage", "queue"),
  edge("A1", "R1", "SendMessage", "interrupt"),
  edge("A1", "R0", "EditMessage"),
  edge("A1", "A0", "DeleteQueuedMessage", "removed last queued"),
  edge("A1", "A1", "DeleteQueuedMessage", "queue still non-empty"),
  edge("A1", "R0", "PromoteQueuedMessage", "promoted last queued"),
  edge("A1", "R1", "PromoteQueuedMessage", "queue still non-empty"),

  edge("XW", "W", "SetArchived", "unarchive"),
  edge("XE0", "E0", "SetArchived", "unarchive"),
  edge("XE1", "E1", "SetArchived", "unarchive"),

  edge("Invalid", "E0", "ReconcileInvalidState", "no queued messages"),
  edge("Invalid", "E1", "ReconcileInvalidState", "queued messages"),
];

/** Renders an edge the way the diagram reads: request variants as arguments, outcome variants after " / ". */
export function describeEdge(e: Edge): string {
  let label: string = e.transition;
  if (e.variant !== undefined) {
    label = hasRequestVariant(e.transition) ? `${e.transition}(${e.variant})` : `${e.transition} / ${e.variant}`;
  }
  return `${e.from} --> ${e.to}: ${label}`;
}

/** The edges of one transition, optionally only those leaving `from`. */
export function edgesOf<T extends ExecutionTransitionName>(transition: T, from?: ClassifiedState): readonly EdgeOf<T>[] {
  return EDGES.filter((e): e is EdgeOf<T> => e.transition === transition && (from === undefined || e.from === from));
}

/** Input states with an edge of `transition` (matching `variant` when given), in CLASSIFIED_STATES order. */
export function allowedFrom<T extends ExecutionTransitionName>(transition: T, variant?: VariantOf<T>): ClassifiedState[] {
  const edges = edgesOf(transition).filter((e) => variant === undefined || e.variant === variant);
  const froms = new Set(edges.map((e) => e.from));
  return CLASSIFIED_STATES.filter((s) => froms.has(s));
}

export function isAllowed<T extends ExecutionTransitionName>(transition: T, from: ClassifiedState, variant?: VariantOf<T>): boolean {
  return edgesOf(transition, from).some((e) => variant === undefined || e.variant === variant);
}

/**
 * Where `transition` from `from` lands. Throws TransitionNotAllowedError when the diagram has no such
 * edge; for request variants, a variant with no edge from `from` is also "not allowed" (e.g.
 * SetArchived(archive) from XW). Throws TransitionVariantError, a caller bug, when a request variant
 * is missing, or an outcome variant is missing where it decides the landing, or names an outcome the
 * input state cannot have (FinishTurn / promoted last queued from R0).
 */
export function landing<T extends ExecutionTransitionName>(transition: T, from: ClassifiedState, variant?: VariantOf<T>): ExecutionState {
  const cell = edgesOf(transition, from);
  const expected = cell.flatMap((e) => (e.variant === undefined ? [] : [e.variant as string]));
  if (hasRequestVariant(transition) && variant === undefined) {
    throw new TransitionVariantError(transition, from, variant, variantsOf(transition));
  }
  if (cell.length === 0) throw new TransitionNotAllowedError(transition, from);

  if (variant === undefined) {
    const only = cell.length === 1 ? cell[0] : undefined;
    if (only === undefined) throw new TransitionVariantError(transition, from, variant, expected);
    return only.to;
  }
  const match = cell.find((e) => e.variant === variant);
  if (match !== undefined) return match.to;
  if (hasRequestVariant(transition)) throw new TransitionNotAllowedError(transition, from);
  throw new TransitionVariantError(transition, from, variant, expected);
}

/**
 * One cell of the transition matrix: a transition applied to an input state (and, for request
 * variants, with one request). `edges` lists where it may land; empty means it must be rejected.
 */
export interface MatrixCell {
  readonly transition: ExecutionTransitionName;
  readonly from: ClassifiedState;
  readonly variant?: string;
  readonly edges: readonly Edge[];
}

/** Every (transition, input state, request variant) cell, allowed or not, for exhaustive tests. */
export const TRANSITION_MATRIX: readonly MatrixCell[] = EXECUTION_TRANSITION_NAMES.flatMap((transition) =>
  CLASSIFIED_STATES.flatMap((from): MatrixCell[] => {
    const cell = edgesOf(transition, from);
    if (!hasRequestVariant(transition)) return [{ transition, from, edges: cell }];
    return variantsOf(transition).map((variant) => {
      const edges = cell.filter((e) => e.variant === variant);
      return { transition, from, variant, edges };
    });
  }),
);

export interface OwnershipEdge {
  readonly transition: OwnershipTransitionName;
  readonly from: OwnershipState;
  readonly to: OwnershipState;
}

/** The ownership diagram. A chat in any execution state may be acquired; the worker skips idle ones. */
export const OWNERSHIP_EDGES: readonly OwnershipEdge[] = [
  { transition: "Acquire", from: "U", to: "O" },
  { transition: "Acquire", from: "O", to: "O" },
  { transition: "Abandon", from: "O", to: "U" },
];

export function isOwnershipAllowed(transition: OwnershipTransitionName, from: OwnershipState): boolean {
  return OWNERSHIP_EDGES.some((e) => e.transition === transition && e.from === from);
}

export function ownershipLanding(transition: OwnershipTransitionName, from: OwnershipState): OwnershipState {
  const match = OWNERSHIP_EDGES.find((e) => e.transition === transition && e.from === from);
  if (match === undefined) throw new TransitionNotAllowedError(transition, from);
  return match.to;
}
