/** Plan mode in the tool assembly (docs/plan-mode.md): read-only tools offered, write tools refused, the guidance block. */
import { describe, expect, it } from "vitest";
import { executeLocalTools } from "../../../src/llm/local-tools";
import { defineLocalTool, modelTools } from "../../../src/llm/tools";
import { chatToolsFactory, type ToolChat, type ToolFamily } from "../../../src/tools/chat-tools";
import { PLAN_MODE_GUIDANCE, planModeRefusalMessage } from "../../../src/tools/plan-mode";

const chat = (over: Partial<ToolChat> = {}): ToolChat => ({
  id: "c",
  organizationId: "o",
  ownerId: "u",
  parentChatId: null,
  projectId: null,
  ...over,
});

let writes = 0;
const tool = (name: string, readOnly?: boolean) =>
  defineLocalTool<unknown>({
    name,
    description: `${name} tool`,
    inputSchema: { type: "object", properties: {} },
    ...(readOnly === undefined ? {} : { readOnly }),
    execute: async () => {
      if (!readOnly) writes++;
      return { ran: name };
    },
  });

const family: ToolFamily = {
  name: "mixed",
  forChat: async () => ({ tools: [tool("look", true), tool("change"), tool("unsure", false)], guidance: "FAMILY" }),
};
const calls = (...names: string[]) =>
  names.map((name, i) => ({ type: "tool-call" as const, tool_call_id: String(i), tool_name: name, args: {} }));

describe("plan mode in the tool registry", () => {
  it("offers only read-only tools, and its guidance goes last", async () => {
    const tools = await chatToolsFactory([family])(chat({ planMode: true }));
    expect(Object.keys(modelTools({ unsafeDynamicTools: null, planMode: true }, tools.registry, tools.hidden).set)).toEqual(["look"]);
    expect(tools.guidance).toEqual(["FAMILY", PLAN_MODE_GUIDANCE]);

    const off = await chatToolsFactory([family])(chat({ planMode: false }));
    expect(Object.keys(modelTools({ unsafeDynamicTools: null }, off.registry, off.hidden).set)).toEqual(["look", "change", "unsure"]);
    expect(off.guidance).toEqual(["FAMILY"]);
  });

  it("refuses a write tool's call with a reason, and runs nothing", async () => {
    const tools = await chatToolsFactory([family])(chat({ planMode: true }));
    writes = 0;
    const results = await executeLocalTools(calls("look", "change", "unsure"), tools.registry, {
      abortSignal: new AbortController().signal,
    });
    expect(results.map((r) => [r.tool_name, r.is_error, r.result])).toEqual([
      ["look", false, { ran: "look" }],
      ["change", true, { error: planModeRefusalMessage("change") }],
      ["unsure", true, { error: planModeRefusalMessage("unsure") }],
    ]);
    expect(writes).toBe(0);
  });

  it("offers a dynamic tool only when its client declared it read_only", () => {
    const dynamic = [{ name: "client_read", read_only: true }, { name: "client_write" }];
    expect(Object.keys(modelTools({ unsafeDynamicTools: dynamic, planMode: true }).set)).toEqual(["client_read"]);
    expect(Object.keys(modelTools({ unsafeDynamicTools: dynamic, planMode: false }).set)).toEqual(["client_read", "client_write"]);
  });
});
