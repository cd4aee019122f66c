import { describe, expect, it } from "vitest";
import { executeLocalTools } from "../../../src/llm/local-tools";
import { defineLocalTool, modelTools } from "../../../src/llm/tools";
import { chatToolsFactory, type ToolChat, type ToolFamily } from "../../../src/tools/chat-tools";

const chat = (over: Partial<ToolChat> = {}): ToolChat => ({
  id: "c",
  organizationId: "o",
  ownerId: "u",
  parentChatId: null,
  projectId: null,
  ...over,
});

const echo = (name: string) =>
  defineLocalTool<{ v: number }>({
    name,
    description: `${name} tool`,
    inputSchema: { type: "object", properties: { v: { type: "number" } } },
    execute: async ({ v }) => ({ name, v }),
  });

/** Root chats only, with a guidance block. */
const rootFamily: ToolFamily = {
  name: "root",
  forChat: async (c) => (c.parentChatId === null ? { tools: [echo("root_a"), echo("root_b")], guidance: "ROOT GUIDANCE" } : null),
};
const everyone: ToolFamily = { name: "all", forChat: async () => ({ tools: [echo("all_c")] }) };

describe("chatToolsFactory", () => {
  it("assembles the families that apply to the chat, in order, with their guidance", async () => {
    const toolsFor = chatToolsFactory([rootFamily, everyone]);
    const root = await toolsFor(chat());
    expect([...root.registry.keys()]).toEqual(["root_a", "root_b", "all_c"]);
    expect(root.guidance).toEqual(["ROOT GUIDANCE"]);
    const child = await toolsFor(chat({ parentChatId: "p" }));
    expect([...child.registry.keys()]).toEqual(["all_c"]);
    expect(child.guidance).toEqual([]);
  });

  it("offers and runs from the same registry: a tool no longer offered is an error result", async () => {
    const toolsFor = chatToolsFactory([rootFamily, everyone]);
    const child = await toolsFor(chat({ parentChatId: "p" }));
    expect(Object.keys(modelTools({ unsafeDynamicTools: null }, child.registry).set)).toEqual(["all_c"]);
    const results = await executeLocalTools(
      [
        { type: "tool-call", tool_call_id: "1", tool_name: "root_a", args: { v: 1 } },
        { type: "tool-call", tool_call_id: "2", tool_name: "all_c", args: { v: 2 } },
      ],
      child.registry,
      { abortSignal: new AbortController().signal },
    );
    expect(results.map((r) => [r.tool_name, r.is_error])).toEqual([
      ["root_a", true],
      ["all_c", false],
    ]);
  });

  it("refuses two families registering the same name", async () => {
    await expect(chatToolsFactory([everyone, everyone])(chat())).rejects.toThrow(/registered twice/);
  });
});
