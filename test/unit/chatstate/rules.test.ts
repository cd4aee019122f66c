import { describe, it, expect } from "vitest";
import {
  EDGES,
  INVALID_STATE_LAST_ERROR,
  REQUIRES_ACTION_TIMEOUT_MS,
  columnsFor,
  keepsCompactionRequest,
  leavesError,
  mustCancelPendingToolCalls,
  nextRequiresActionDeadline,
  pendingToolCalls,
  rankTitleSource,
  requiresActionDeadline,
  syntheticCancellationResults,
  titleWriteApplies,
} from "../../../src/chatstate";
import type { MessageWithParts, ToolCallPart } from "../../../src/chatstate";

const edgeLines = (keep: (e: (typeof EDGES)[number]) => boolean) =>
  EDGES.filter(keep)
    .map((e) => `${e.from} --> ${e.to}: ${e.transition}${e.variant === undefined ? "" : ` / ${e.variant}`}`)
    .sort();

describe("columnsFor", () => {
  it("gives the status and archived marker a landing state writes", () => {
    expect(columnsFor("XE1")).toEqual({ status: "error", archived: true });
    expect(columnsFor("A0")).toEqual({ status: "requires_action", archived: false });
  });
});

describe("leavesError", () => {
  it("clears last_error exactly on the edges that take an unarchived chat out of error", () => {
    expect(edgeLines((e) => leavesError(e.from, e.to, e.transition))).toEqual(
      [
        "E0 --> R0: SendMessage / queue",
        "E0 --> R0: SendMessage / interrupt",
        "E0 --> R0: EditMessage",
        "E0 --> R0: RequestCompaction",
        "E0 --> W: ClearContext",
        "E1 --> R1: SendMessage / queue",
        "E1 --> R1: SendMessage / interrupt",
        "E1 --> R0: EditMessage",
        "E1 --> R1: RequestCompaction",
        "E1 --> R0: PromoteQueuedMessage / promoted last queued",
        "E1 --> R1: PromoteQueuedMessage / queue still non-empty",
      ].sort(),
    );
  });

  it("keeps last_error when archiving an errored chat, so unarchiving shows it again", () => {
    expect(leavesError("E0", "XE0", "SetArchived")).toBe(false);
    expect(leavesError("XE1", "E1", "SetArchived")).toBe(false);
  });

  it("keeps last_error when deleting a queued message leaves the chat in error", () => {
    expect(leavesError("E1", "E0", "DeleteQueuedMessage")).toBe(false);
    expect(leavesError("E1", "E1", "DeleteQueuedMessage")).toBe(false);
  });
});

describe("mustCancelPendingToolCalls", () => {
  it("applies to every edge out of A0/A1 except CompleteRequiresAction", () => {
    expect(edgeLines((e) => mustCancelPendingToolCalls(e.transition, e.from, e.to))).toEqual(
      [
        "A0 --> R0: Interrupt",
        "A0 --> R0: CancelRequiresAction",
        "A0 --> R1: SendMessage / interrupt",
        "A0 --> R0: EditMessage",
        "A1 --> R1: Interrupt",
        "A1 --> R1: CancelRequiresAction",
        "A1 --> R1: SendMessage / interrupt",
        "A1 --> R0: EditMessage",
        "A1 --> R0: PromoteQueuedMessage / promoted last queued",
        "A1 --> R1: PromoteQueuedMessage / queue still non-empty",
      ].sort(),
    );
  });

  it("does not apply when a queued send keeps the chat waiting for tool results", () => {
    expect(mustCancelPendingToolCalls("SendMessage", "A0", "A1")).toBe(false);
    expect(mustCancelPendingToolCalls("DeleteQueuedMessage", "A1", "A0")).toBe(false);
  });
});

const call = (id: string, name = "search"): ToolCallPart => ({ type: "tool-call", tool_call_id: id, tool_name: name, args: { q: id } });
const result = (id: string, name = "search") => ({
  type: "tool-result" as const,
  tool_call_id: id,
  tool_name: name,
  result: "ok",
  is_error: false,
});

describe("pendingToolCalls", () => {
  it("returns the calls with no later result, in call order", () => {
    const history: MessageWithParts[] = [
      { content: [{ type: "text" }] },
      { content: [{ type: "text" }, call("a"), call("b"), call("c", "ask_user")] },
      { content: [result("b")] },
      { content: [call("d")] },
    ];
    expect(pendingToolCalls(history).map((c) => c.tool_call_id)).toEqual(["a", "c", "d"]);
  });

  it("returns nothing when every call is answered", () => {
    expect(pendingToolCalls([{ content: [call("a")] }, { content: [result("a")] }])).toEqual([]);
    expect(pendingToolCalls([])).toEqual([]);
  });

  it("does not let a result that precedes its call answer it", () => {
    expect(pendingToolCalls([{ content: [result("a")] }, { content: [call("a")] }]).map((c) => c.tool_call_id)).toEqual(["a"]);
  });
});

describe("syntheticCancellationResults", () => {
  it("answers each pending call with an error result naming the reason", () => {
    expect(syntheticCancellationResults([call("a"), call("b", "ask_user")], "interrupted by user")).toEqual([
      {
        type: "tool-result",
        tool_call_id: "a",
        tool_name: "search",
        result: { error: "tool call cancelled: interrupted by user" },
        is_error: true,
      },
      {
        type: "tool-result",
        tool_call_id: "b",
        tool_name: "ask_user",
        result: { error: "tool call cancelled: interrupted by user" },
        is_error: true,
      },
    ]);
  });

  it("leaves nothing pending once inserted", () => {
    const history: MessageWithParts[] = [{ content: [call("a"), call("b")] }];
    const closed = [...history, { content: syntheticCancellationResults(pendingToolCalls(history), "message edited") }];
    expect(pendingToolCalls(closed)).toEqual([]);
  });
});

describe("title sources", () => {
  it("rank fallback below generated below user", () => {
    expect(rankTitleSource("fallback")).toBeLessThan(rankTitleSource("generated"));
    expect(rankTitleSource("generated")).toBeLessThan(rankTitleSource("user"));
  });

  it.each([
    ["fallback", "fallback", true],
    ["fallback", "generated", true],
    ["fallback", "user", true],
    ["generated", "fallback", false],
    ["generated", "generated", true],
    ["generated", "user", true],
    ["user", "fallback", false],
    ["user", "generated", false],
    ["user", "user", true],
  ] as const)("a %s title takes a %s write: %s", (current, incoming, applies) => {
    expect(titleWriteApplies(current, incoming)).toBe(applies);
  });
});

describe("keepsCompactionRequest", () => {
  it("carries the request through transitions that keep the turn alive", () => {
    for (const t of ["Acquire", "Abandon"] as const) expect(keepsCompactionRequest(t)).toBe(true);
    for (const t of ["SetArchived", "RecordGenerationAttempt", "RecordRetryState", "CommitStep", "DeleteQueuedMessage"] as const) {
      expect(keepsCompactionRequest(t), t).toBe(true);
    }
    expect(keepsCompactionRequest("SendMessage", "queue")).toBe(true);
  });

  it("clears the request on transitions that end or replace the turn", () => {
    for (const t of [
      "FinishTurn",
      "FinishError",
      "Interrupt",
      "EditMessage",
      "PromoteQueuedMessage",
      "CancelRequiresAction",
      "ReconcileInvalidState",
      "ClearContext",
      "FinishInterruption",
      "CompleteRequiresAction",
      "EnterRequiresAction",
      "Create",
    ] as const) {
      expect(keepsCompactionRequest(t), t).toBe(false);
    }
    expect(keepsCompactionRequest("SendMessage", "interrupt")).toBe(false);
  });

  it("needs SendMessage's busy behaviour to decide", () => {
    expect(() => keepsCompactionRequest("SendMessage")).toThrow(TypeError);
  });
});

describe("requires-action deadline", () => {
  const now = new Date("2025-01-01T00:00:00.000Z");

  it("is five minutes after now", () => {
    expect(REQUIRES_ACTION_TIMEOUT_MS).toBe(300_000);
    expect(requiresActionDeadline(now).toISOString()).toBe("2025-01-01T00:05:00.000Z");
  });

  it("is set by EnterRequiresAction, kept while the chat waits for tool results, and cleared on leaving", () => {
    const current = new Date("2025-01-01T00:03:00.000Z");
    expect(nextRequiresActionDeadline("EnterRequiresAction", "A0", null, now)).toEqual(requiresActionDeadline(now));
    expect(nextRequiresActionDeadline("SendMessage", "A1", current, now)).toBe(current);
    expect(nextRequiresActionDeadline("DeleteQueuedMessage", "A0", current, now)).toBe(current);
    expect(nextRequiresActionDeadline("CompleteRequiresAction", "R0", current, now)).toBeNull();
    expect(nextRequiresActionDeadline("ReconcileInvalidState", "E1", current, now)).toBeNull();
  });
});

describe("INVALID_STATE_LAST_ERROR", () => {
  it("tells the user how to continue", () => {
    expect(INVALID_STATE_LAST_ERROR).toMatch(/invalid state/);
    expect(INVALID_STATE_LAST_ERROR).toMatch(/new message/);
    expect(INVALID_STATE_LAST_ERROR).toMatch(/edit/);
  });
});
