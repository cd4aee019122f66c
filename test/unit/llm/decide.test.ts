import { describe, expect, it } from "vitest";
import { clearBoundaryMessages } from "../../../src/chats/transitions/clear-context";
import { hookContextRows } from "../../../src/chats/hook-context-rows";
import { decideNextStep, stepsThisTurn, stopContinuedThisTurn } from "../../../src/llm/decide";
import { History } from "./history-rows";

const MAX_STEPS = 1200;
const idle = { unsafeDynamicTools: [{ name: "client_pick" }], compactionRequestedAt: null };
const compacting = { ...idle, compactionRequestedAt: new Date(0) };

function decide(h: History, chat: Parameters<typeof decideNextStep>[0]["chat"] = idle, maxStepsPerTurn = MAX_STEPS) {
  return decideNextStep({ chat, history: h.rows, maxStepsPerTurn });
}

describe("decideNextStep", () => {
  it("calls the model when the last message is the user's", () => {
    const h = new History();
    h.system("sys");
    h.user("hi");
    expect(decide(h)).toEqual({ kind: "call_model" });
  });

  it("finishes the turn when the last message is an assistant message without calls", () => {
    const h = new History();
    h.user("hi");
    h.assistant("hello");
    expect(decide(h)).toEqual({ kind: "finish_turn", reason: "complete" });
  });

  it("finishes the turn of an empty history", () => {
    expect(decide(new History())).toEqual({ kind: "finish_turn", reason: "complete" });
  });

  it("runs pending local tool calls, all of them at once", () => {
    const h = new History();
    h.user("go");
    h.calls({ id: "a", name: "search", args: { q: 1 } }, { id: "b", name: "read" });
    expect(decide(h)).toEqual({
      kind: "run_local_tools",
      calls: [
        { type: "tool-call", tool_call_id: "a", tool_name: "search", args: { q: 1 } },
        { type: "tool-call", tool_call_id: "b", tool_name: "read", args: {} },
      ],
    });
  });

  it("treats a call to a tool nobody knows as local, so it gets an unknown-tool result", () => {
    const h = new History();
    h.user("go");
    h.calls({ id: "a", name: "no_such_tool" });
    expect(decide(h)).toMatchObject({ kind: "run_local_tools", calls: [{ tool_name: "no_such_tool" }] });
  });

  it("enters requires_action for pending dynamic calls", () => {
    const h = new History();
    h.user("go");
    h.calls({ id: "d", name: "client_pick" });
    expect(decide(h)).toEqual({
      kind: "enter_requires_action",
      calls: [{ type: "tool-call", tool_call_id: "d", tool_name: "client_pick", args: {} }],
    });
  });

  it("runs the local calls of a mixed response first, then waits for the client", () => {
    const h = new History();
    h.user("go");
    h.calls({ id: "d", name: "client_pick" }, { id: "l", name: "search" });
    expect(decide(h)).toMatchObject({ kind: "run_local_tools", calls: [{ tool_call_id: "l" }] });
    h.result("l", "search");
    expect(decide(h)).toMatchObject({ kind: "enter_requires_action", calls: [{ tool_call_id: "d" }] });
    h.result("d", "client_pick");
    expect(decide(h)).toEqual({ kind: "call_model" });
  });

  it("calls the model again once every call is answered", () => {
    const h = new History();
    h.user("go");
    h.calls({ id: "a", name: "search" });
    h.result("a", "search");
    expect(decide(h)).toEqual({ kind: "call_model" });
  });

  it("compacts when asked and an uncompressed assistant message follows the latest boundary", () => {
    const h = new History();
    h.user("hi");
    h.assistant("hello");
    expect(decide(h, compacting)).toEqual({ kind: "compact" });
  });

  it("checks the tool guards before compaction", () => {
    const h = new History();
    h.user("hi");
    h.calls({ id: "a", name: "search" });
    expect(decide(h, compacting).kind).toBe("run_local_tools");
    h.result("a", "search");
    h.calls({ id: "d", name: "client_pick" });
    expect(decide(h, compacting).kind).toBe("enter_requires_action");
  });

  it("ignores a compaction request with nothing to compact and decides as usual", () => {
    const h = new History();
    h.user("hi");
    expect(decide(h, compacting)).toEqual({ kind: "call_model" });

    const cleared = new History();
    cleared.user("hi");
    cleared.assistant("hello");
    cleared.addMessages(clearBoundaryMessages({ toolCallId: "c", clearedAt: new Date(0), createdBy: null, modelConfigId: null }));
    expect(decide(cleared, compacting)).toEqual({ kind: "finish_turn", reason: "complete" });
  });

  it("finds the history complete right after a compaction triplet", () => {
    const h = new History();
    h.user("hi");
    h.assistant("hello");
    h.compaction("summary");
    expect(decide(h)).toEqual({ kind: "finish_turn", reason: "complete" });
  });

  it("continues after an automatic compaction that replayed an unanswered user message", () => {
    const h = new History();
    h.user("hi");
    h.assistant("hello");
    h.user("unanswered");
    h.compaction("summary");
    h.user("unanswered", { modelOnly: true });
    expect(decide(h)).toEqual({ kind: "call_model" });
  });

  it("reads user-visible history: model-only context after an answer does not reopen the turn", () => {
    const h = new History();
    h.user("hi");
    h.assistant("hello");
    h.user("hook context", { modelOnly: true });
    expect(decide(h)).toEqual({ kind: "finish_turn", reason: "complete" });
  });

  it("ignores deleted rows", () => {
    const h = new History();
    h.user("hi");
    h.assistant("deleted answer", { deleted: true });
    expect(decide(h)).toEqual({ kind: "call_model" });
    h.calls({ id: "x", name: "client_pick" }).deleted = true;
    expect(decide(h)).toEqual({ kind: "call_model" });
  });

  describe("step limit", () => {
    function turnWithSteps(steps: number): History {
      const h = new History();
      h.user("earlier turn");
      h.assistant("earlier answer");
      h.user("go");
      for (let i = 0; i < steps; i++) {
        h.calls({ id: `c${i}`, name: "search" });
        h.result(`c${i}`, "search");
      }
      return h;
    }

    it("finishes the turn instead of calling the model once the limit is reached", () => {
      expect(decide(turnWithSteps(3), idle, 3)).toEqual({ kind: "finish_turn", reason: "step_limit" });
      expect(decide(turnWithSteps(2), idle, 3)).toEqual({ kind: "call_model" });
    });

    it("still runs the tools the last response asked for", () => {
      const h = turnWithSteps(2);
      h.calls({ id: "last", name: "search" });
      expect(decide(h, idle, 3).kind).toBe("run_local_tools");
      h.result("last", "search");
      expect(decide(h, idle, 3)).toEqual({ kind: "finish_turn", reason: "step_limit" });
    });

    it("counts from the latest user message that is not model-only, and not compressed rows", () => {
      const h = turnWithSteps(2);
      h.user("hook context", { modelOnly: true });
      h.compaction("summary");
      h.user("replayed", { modelOnly: true });
      expect(stepsThisTurn(h.rows)).toBe(2);
      expect(decide(h, idle, 2)).toEqual({ kind: "finish_turn", reason: "step_limit" });
      expect(decide(h, idle, 3)).toEqual({ kind: "call_model" });
    });
  });
});

describe("the stop hook's continuation", () => {
  const stopRow = (h: History) => h.addMessages(hookContextRows("stop", { model_context: "check the tests" }));

  it("continues a complete turn once, past the step limit", async () => {
    const h = new History();
    h.user("hi");
    h.assistant("done");
    expect(stopContinuedThisTurn(h.rows)).toBe(false);
    stopRow(h);
    expect(decide(h, idle, 1)).toEqual({ kind: "call_model" });
    h.assistant("checked");
    expect(decide(h, idle, 1)).toEqual({ kind: "finish_turn", reason: "complete" });
    expect(stopContinuedThisTurn(h.rows)).toBe(true);
    h.user("next");
    expect(stopContinuedThisTurn(h.rows)).toBe(false);
  });

  it("continues after a visible post_compact row, not after a model-only one", () => {
    const h = new History();
    h.user("hi");
    h.assistant("hello");
    h.user("summary", { modelOnly: true, compressed: true });
    h.addMessages(hookContextRows("post_compact", { model_context: "for the model" }));
    expect(decide(h)).toEqual({ kind: "finish_turn", reason: "complete" });
    h.addMessages(hookContextRows("post_compact", { user_context: "for the user" }));
    expect(decide(h)).toEqual({ kind: "call_model" });
  });

  it("does not count hook context as a new turn", () => {
    const h = new History();
    h.user("hi");
    h.assistant("one");
    h.addMessages(hookContextRows("post_tool_use", { user_context: "visible note" }));
    expect(decide(h, idle, 1)).toEqual({ kind: "finish_turn", reason: "step_limit" });
  });
});
