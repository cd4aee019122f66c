import { describe, expect, it } from "vitest";
import { AbortedError } from "../../../src/llm/aborted";
import { executeLocalTools } from "../../../src/llm/local-tools";
import { defineLocalTool, type LocalTool, localToolRegistry } from "../../../src/llm/tools";

const schema = { type: "object" as const };
const call = (id: string, name: string, args: unknown = {}) => ({ type: "tool-call" as const, tool_call_id: id, tool_name: name, args });

/** Resolves once `count` callers have arrived: proves the calls run at the same time. */
function barrier(count: number): () => Promise<void> {
  let arrived = 0;
  let release = (): void => {};
  const all = new Promise<void>((resolve) => {
    release = resolve;
  });
  return () => {
    arrived += 1;
    if (arrived === count) release();
    return all;
  };
}

describe("executeLocalTools", () => {
  it("runs parallel calls concurrently and returns every result together, in call order", async () => {
    const meet = barrier(2);
    const slowEcho = defineLocalTool<{ v: number }>({
      name: "echo",
      description: "",
      inputSchema: schema,
      execute: async ({ v }) => {
        await meet();
        return { v };
      },
    });
    const results = await executeLocalTools([call("b", "echo", { v: 2 }), call("a", "echo", { v: 1 })], localToolRegistry([slowEcho]), {
      abortSignal: new AbortController().signal,
    });
    expect(results).toEqual([
      { type: "tool-result", tool_call_id: "b", tool_name: "echo", result: { v: 2 }, is_error: false },
      { type: "tool-result", tool_call_id: "a", tool_name: "echo", result: { v: 1 }, is_error: false },
    ]);
  });

  it("answers an unknown tool and a failing tool with error results", async () => {
    const failing: LocalTool = {
      name: "fail",
      description: "",
      inputSchema: schema,
      execute: async () => Promise.reject(new Error("disk full")),
    };
    const quiet: LocalTool = { name: "quiet", description: "", inputSchema: schema, execute: async () => undefined };
    const results = await executeLocalTools(
      [call("1", "nope"), call("2", "fail"), call("3", "quiet")],
      localToolRegistry([failing, quiet]),
      {
        abortSignal: new AbortController().signal,
      },
    );
    expect(results).toEqual([
      { type: "tool-result", tool_call_id: "1", tool_name: "nope", result: { error: "unknown tool: nope" }, is_error: true },
      { type: "tool-result", tool_call_id: "2", tool_name: "fail", result: { error: "disk full" }, is_error: true },
      { type: "tool-result", tool_call_id: "3", tool_name: "quiet", result: null, is_error: false },
    ]);
  });

  it("gives each tool the abort signal and its call id, and rejects with AbortedError as soon as it fires", async () => {
    const controller = new AbortController();
    const seen: { id: string; signal: AbortSignal }[] = [];
    const forever: LocalTool = {
      name: "forever",
      description: "",
      inputSchema: schema,
      execute: (_args, { abortSignal, toolCallId }) => {
        seen.push({ id: toolCallId, signal: abortSignal });
        return new Promise(() => {});
      },
    };
    const running = executeLocalTools([call("x", "forever")], localToolRegistry([forever]), { abortSignal: controller.signal });
    controller.abort();
    await expect(running).rejects.toBeInstanceOf(AbortedError);
    expect(seen).toEqual([{ id: "x", signal: controller.signal }]);
  });

  it("runs nothing when already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    let ran = false;
    const tool: LocalTool = {
      name: "t",
      description: "",
      inputSchema: schema,
      execute: async () => {
        ran = true;
      },
    };
    await expect(executeLocalTools([call("x", "t")], localToolRegistry([tool]), { abortSignal: controller.signal })).rejects.toBeInstanceOf(
      AbortedError,
    );
    expect(ran).toBe(false);
  });
});
