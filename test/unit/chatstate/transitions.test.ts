import { describe, it, expect } from "vitest";
import {
  CLASSIFIED_STATES,
  EDGES,
  EXECUTION_TRANSITION_NAMES,
  OWNERSHIP_EDGES,
  TRANSITION_MATRIX,
  TRANSITION_NAMES,
  TransitionNotAllowedError,
  TransitionVariantError,
  allowedFrom,
  describeEdge,
  edgesOf,
  isAllowed,
  isOwnershipAllowed,
  landing,
  ownershipLanding,
  variantsOf,
} from "../../../src/chatstate";
import type { Edge, ExecutionTransitionName, VariantOf } from "../../../src/chatstate";

// Written out from the spec's "Execution state transition diagram", plus N --> W: Create from the
// TODO (#27111), with SendMessage split into both busy behaviours for every input the HTTP section
// lists. Request variants are written as arguments, outcome variants after " / ".
const SPEC_EDGES = [
  "N --> R0: Create(with user message)",
  "N --> W: Create(empty content)",

  "W --> R0: SendMessage(queue)",
  "W --> R0: SendMessage(interrupt)",
  "W --> R0: EditMessage",
  "W --> R0: RequestCompaction",
  "W --> W: ClearContext",
  "W --> E0: FinishError",
  "W --> XW: SetArchived(archive)",

  "E0 --> R0: SendMessage(queue)",
  "E0 --> R0: SendMessage(interrupt)",
  "E0 --> R0: EditMessage",
  "E0 --> R0: RequestCompaction",
  "E0 --> W: ClearContext",
  "E0 --> XE0: SetArchived(archive)",

  "E1 --> R1: SendMessage(queue)",
  "E1 --> R1: SendMessage(interrupt)",
  "E1 --> R0: EditMessage",
  "E1 --> R1: RequestCompaction",
  "E1 --> E0: DeleteQueuedMessage / removed last queued",
  "E1 --> E1: DeleteQueuedMessage / queue still non-empty",
  "E1 --> R0: PromoteQueuedMessage / promoted last queued",
  "E1 --> R1: PromoteQueuedMessage / queue still non-empty",
  "E1 --> XE1: SetArchived(archive)",

  "R0 --> R0: RecordGenerationAttempt",
  "R0 --> R0: RecordRetryState",
  "R0 --> R0: CommitStep",
  "R0 --> A0: EnterRequiresAction",
  "R0 --> I0: Interrupt",
  "R0 --> I1: SendMessage(interrupt)",
  "R0 --> R0: EditMessage",
  "R0 --> W: FinishTurn / queue empty",
  "R0 --> E0: FinishError",
  "R0 --> R1: SendMessage(queue)",

  "R1 --> R1: RecordGenerationAttempt",
  "R1 --> R1: RecordRetryState",
  "R1 --> R1: CommitStep",
  "R1 --> A1: EnterRequiresAction",
  "R1 --> I1: Interrupt",
  "R1 --> I1: SendMessage(interrupt)",
  "R1 --> R0: EditMessage",
  "R1 --> E1: FinishError",
  "R1 --> R1: SendMessage(queue)",
  "R1 --> R0: DeleteQueuedMessage / removed last queued",
  "R1 --> R1: DeleteQueuedMessage / queue still non-empty",
  "R1 --> I1: PromoteQueuedMessage",
  "R1 --> R0: FinishTurn / promoted last queued",
  "R1 --> R1: FinishTurn / queue still non-empty after promoting head",

  "I0 --> I1: SendMessage(queue)",
  "I0 --> I1: SendMessage(interrupt)",
  "I0 --> R0: EditMessage",
  "I0 --> W: FinishInterruption",

  "I1 --> I1: SendMessage(queue)",
  "I1 --> I1: SendMessage(interrupt)",
  "I1 --> R0: EditMessage",
  "I1 --> I0: DeleteQueuedMessage / removed last queued",
  "I1 --> I1: DeleteQueuedMessage / queue still non-empty",
  "I1 --> I1: PromoteQueuedMessage",
  "I1 --> R0: FinishInterruption / promoted last queued",
  "I1 --> R1: FinishInterruption / queue still non-empty after promoting head",

  "A0 --> R0: CompleteRequiresAction",
  "A0 --> R0: Interrupt",
  "A0 --> R0: CancelRequiresAction",
  "A0 --> A1: SendMessage(queue)",
  "A0 --> R1: SendMessage(interrupt)",
  "A0 --> R0: EditMessage",

  "A1 --> R1: CompleteRequiresAction",
  "A1 --> R1: Interrupt",
  "A1 --> R1: CancelRequiresAction",
  "A1 --> A1: SendMessage(queue)",
  "A1 --> R1: SendMessage(interrupt)",
  "A1 --> R0: EditMessage",
  "A1 --> A0: DeleteQueuedMessage / removed last queued",
  "A1 --> A1: DeleteQueuedMessage / queue still non-empty",
  "A1 --> R0: PromoteQueuedMessage / promoted last queued",
  "A1 --> R1: PromoteQueuedMessage / queue still non-empty",

  "XW --> W: SetArchived(unarchive)",
  "XE0 --> E0: SetArchived(unarchive)",
  "XE1 --> E1: SetArchived(unarchive)",

  "Invalid --> E0: ReconcileInvalidState / no queued messages",
  "Invalid --> E1: ReconcileInvalidState / queued messages",
];

// The HTTP section's per-endpoint lists, as (input, output) pairs, checked against the table.
const HTTP_LISTS: readonly { transition: ExecutionTransitionName; variant?: string; pairs: string }[] = [
  { transition: "Create", variant: "with user message", pairs: "N>R0" },
  { transition: "Create", variant: "empty content", pairs: "N>W" },
  { transition: "SetArchived", variant: "archive", pairs: "W>XW E0>XE0 E1>XE1" },
  { transition: "SetArchived", variant: "unarchive", pairs: "XW>W XE0>E0 XE1>E1" },
  { transition: "SendMessage", variant: "queue", pairs: "W>R0 E0>R0 E1>R1 R0>R1 R1>R1 I0>I1 I1>I1 A0>A1 A1>A1" },
  { transition: "SendMessage", variant: "interrupt", pairs: "W>R0 E0>R0 E1>R1 R0>I1 R1>I1 I0>I1 I1>I1 A0>R1 A1>R1" },
  { transition: "EditMessage", pairs: "W>R0 E0>R0 E1>R0 R0>R0 R1>R0 I0>R0 I1>R0 A0>R0 A1>R0" },
  { transition: "DeleteQueuedMessage", pairs: "E1>E0 E1>E1 R1>R0 R1>R1 I1>I0 I1>I1 A1>A0 A1>A1" },
  { transition: "PromoteQueuedMessage", pairs: "E1>R0 E1>R1 R1>I1 I1>I1 A1>R0 A1>R1" },
  { transition: "Interrupt", pairs: "R0>I0 R1>I1 A0>R0 A1>R1" },
  { transition: "CompleteRequiresAction", pairs: "A0>R0 A1>R1" },
  { transition: "RequestCompaction", pairs: "W>R0 E0>R0 E1>R1" },
  { transition: "ClearContext", pairs: "W>W E0>W" },
];

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

function setDifference(a: readonly string[], b: readonly string[]): string[] {
  const other = new Set(b);
  return a.filter((x) => !other.has(x));
}

describe("EDGES", () => {
  const actual = EDGES.map(describeEdge);

  it("contains every edge of the spec's diagram", () => {
    expect(setDifference(SPEC_EDGES, actual)).toEqual([]);
  });

  it("contains no edge that the spec's diagram lacks", () => {
    expect(setDifference(actual, SPEC_EDGES)).toEqual([]);
  });

  it("lists each edge once", () => {
    expect(new Set(actual).size).toBe(actual.length);
    expect(actual).toHaveLength(81);
  });

  it.each(HTTP_LISTS)("agrees with the HTTP section for $transition $variant", ({ transition, variant, pairs }) => {
    const fromTable = edgesOf(transition)
      .filter((e) => variant === undefined || e.variant === variant)
      .map((e) => `${e.from}>${e.to}`);
    expect(new Set(fromTable)).toEqual(new Set(pairs.split(" ")));
  });

  it("uses every declared variant of a transition and no undeclared one", () => {
    for (const transition of EXECUTION_TRANSITION_NAMES) {
      const used = new Set(edgesOf(transition).flatMap((e) => (e.variant === undefined ? [] : [e.variant])));
      expect([...used].sort(), transition).toEqual([...variantsOf(transition)].sort());
    }
  });

  it("never lands in N or Invalid, and only Create starts from N and only ReconcileInvalidState from Invalid", () => {
    for (const e of EDGES) {
      expect(["N", "Invalid"]).not.toContain(e.to);
      if (e.from === "N") expect(e.transition).toBe("Create");
      if (e.from === "Invalid") expect(e.transition).toBe("ReconcileInvalidState");
    }
  });

  it("keeps Acquire and Abandon out of the execution table", () => {
    expect(TRANSITION_NAMES).toContain("Acquire");
    expect(EDGES.map((e) => e.transition as string)).not.toContain("Acquire");
    expect(EDGES.map((e) => e.transition as string)).not.toContain("Abandon");
  });
});

describe("landing", () => {
  it.each(EDGES.map((e) => [describeEdge(e), e] as const))("lands %s", (_, e: Edge) => {
    expect(landing(e.transition, e.from, e.variant as VariantOf<typeof e.transition>)).toBe(e.to);
  });

  it("lands an outcome-variant transition without its variant when the input state has one edge", () => {
    expect(landing("FinishTurn", "R0")).toBe("W");
    expect(landing("PromoteQueuedMessage", "R1")).toBe("I1");
    expect(landing("FinishInterruption", "I0")).toBe("W");
  });

  it.each([
    ["SendMessage", "XW", "queue", "SendMessage is not allowed from XW"],
    ["SendMessage", "Invalid", "interrupt", "SendMessage is not allowed from Invalid"],
    ["EditMessage", "XE1", undefined, "EditMessage is not allowed from XE1"],
    ["Interrupt", "W", undefined, "Interrupt is not allowed from W"],
    ["Interrupt", "I0", undefined, "Interrupt is not allowed from I0"],
    ["ClearContext", "E1", undefined, "ClearContext is not allowed from E1"],
    ["ClearContext", "R0", undefined, "ClearContext is not allowed from R0"],
    ["RequestCompaction", "R1", undefined, "RequestCompaction is not allowed from R1"],
    ["DeleteQueuedMessage", "R0", "removed last queued", "DeleteQueuedMessage is not allowed from R0"],
    ["PromoteQueuedMessage", "A0", undefined, "PromoteQueuedMessage is not allowed from A0"],
    ["CompleteRequiresAction", "R0", undefined, "CompleteRequiresAction is not allowed from R0"],
    ["FinishError", "E0", undefined, "FinishError is not allowed from E0"],
    ["FinishError", "I0", undefined, "FinishError is not allowed from I0"],
    ["FinishTurn", "I1", "promoted last queued", "FinishTurn is not allowed from I1"],
    ["CommitStep", "A0", undefined, "CommitStep is not allowed from A0"],
    ["RecordGenerationAttempt", "I0", undefined, "RecordGenerationAttempt is not allowed from I0"],
    ["ReconcileInvalidState", "W", "no queued messages", "ReconcileInvalidState is not allowed from W"],
    ["Create", "W", "with user message", "Create is not allowed from W"],
    ["SetArchived", "R0", "archive", "SetArchived is not allowed from R0"],
    ["SetArchived", "XW", "archive", "SetArchived is not allowed from XW"],
    ["SetArchived", "W", "unarchive", "SetArchived is not allowed from W"],
  ] as const)("rejects %s from %s (%s) with TransitionNotAllowedError", (transition, from, variant, message) => {
    const error = thrownBy(() => landing(transition as ExecutionTransitionName, from, variant as never));
    expect(error).toBeInstanceOf(TransitionNotAllowedError);
    expect(error).toMatchObject({ transition, from, code: "transition_not_allowed", message });
  });

  it("rejects every disallowed cell of the matrix", () => {
    for (const cell of TRANSITION_MATRIX.filter((c) => c.edges.length === 0)) {
      const name = `${cell.transition} ${cell.from} ${cell.variant ?? ""}`;
      expect(() => landing(cell.transition, cell.from, cell.variant as never), name).toThrow(TransitionNotAllowedError);
    }
  });

  it("treats a missing request variant as a caller bug", () => {
    expect(() => landing("SendMessage", "R0")).toThrow(TransitionVariantError);
    expect(() => landing("SetArchived", "W")).toThrow('expected one of "archive", "unarchive"');
    expect(() => landing("Create", "N")).toThrow(TransitionVariantError);
  });

  it("treats a missing outcome variant as a caller bug where it decides the landing", () => {
    expect(() => landing("FinishTurn", "R1")).toThrow(
      'FinishTurn from R1 was given no variant; expected one of "promoted last queued", "queue still non-empty after promoting head"',
    );
    expect(() => landing("DeleteQueuedMessage", "E1")).toThrow(TransitionVariantError);
    expect(() => landing("ReconcileInvalidState", "Invalid")).toThrow(TransitionVariantError);
  });

  it("treats an outcome the input state cannot produce as a caller bug", () => {
    expect(() => landing("FinishTurn", "R0", "promoted last queued")).toThrow(TransitionVariantError);
    expect(() => landing("PromoteQueuedMessage", "R1", "queue still non-empty")).toThrow(
      'PromoteQueuedMessage from R1 was given variant "queue still non-empty"; expected no variant',
    );
  });
});

describe("allowedFrom and isAllowed", () => {
  it("lists the input states of a transition in state order", () => {
    expect(allowedFrom("Interrupt")).toEqual(["R0", "R1", "A0", "A1"]);
    expect(allowedFrom("ClearContext")).toEqual(["W", "E0"]);
    expect(allowedFrom("Create")).toEqual(["N"]);
    expect(allowedFrom("ReconcileInvalidState")).toEqual(["Invalid"]);
  });

  it("narrows by request variant", () => {
    expect(allowedFrom("SetArchived", "archive")).toEqual(["W", "E0", "E1"]);
    expect(allowedFrom("SetArchived", "unarchive")).toEqual(["XW", "XE0", "XE1"]);
    expect(allowedFrom("SendMessage", "queue")).toEqual(["W", "E0", "E1", "R0", "R1", "I0", "I1", "A0", "A1"]);
  });

  it("answers per cell, with or without a variant", () => {
    expect(isAllowed("FinishError", "R1")).toBe(true);
    expect(isAllowed("FinishError", "A0")).toBe(false);
    expect(isAllowed("SetArchived", "XW")).toBe(true);
    expect(isAllowed("SetArchived", "XW", "archive")).toBe(false);
    expect(isAllowed("FinishTurn", "R0", "promoted last queued")).toBe(false);
  });
});

describe("TRANSITION_MATRIX", () => {
  it("has one cell per transition, input state and request variant", () => {
    const expected = EXECUTION_TRANSITION_NAMES.reduce(
      (n, t) => n + CLASSIFIED_STATES.length * (["Create", "SetArchived", "SendMessage"].includes(t) ? 2 : 1),
      0,
    );
    expect(TRANSITION_MATRIX).toHaveLength(expected);
    const keys = TRANSITION_MATRIX.map((c) => `${c.transition}|${c.from}|${c.variant ?? ""}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("covers every edge exactly once", () => {
    const covered = TRANSITION_MATRIX.flatMap((c) => c.edges.map(describeEdge));
    expect([...covered].sort()).toEqual(EDGES.map(describeEdge).sort());
  });

  it("groups outcome variants into one cell", () => {
    const cell = TRANSITION_MATRIX.find((c) => c.transition === "FinishTurn" && c.from === "R1");
    expect(cell?.edges.map((e) => e.to)).toEqual(["R0", "R1"]);
  });
});

describe("ownership", () => {
  it("has exactly the spec's ownership edges", () => {
    expect(OWNERSHIP_EDGES.map((e) => `${e.from} --> ${e.to}: ${e.transition}`).sort()).toEqual(
      ["U --> O: Acquire", "O --> O: Acquire", "O --> U: Abandon"].sort(),
    );
  });

  it("acquires an unowned or owned chat and abandons only an owned one", () => {
    expect(ownershipLanding("Acquire", "U")).toBe("O");
    expect(ownershipLanding("Acquire", "O")).toBe("O");
    expect(ownershipLanding("Abandon", "O")).toBe("U");
    expect(isOwnershipAllowed("Abandon", "U")).toBe(false);
    expect(() => ownershipLanding("Abandon", "U")).toThrow(new TransitionNotAllowedError("Abandon", "U"));
    expect(() => ownershipLanding("Abandon", "U")).toThrow("Abandon is not allowed from U");
  });
});
