import { describe, expect, it } from "vitest";
import { defineLocalTool, isDynamicTool, localToolRegistry, modelTools } from "../../../src/llm/tools";

const search = defineLocalTool<{ q: string }>({
  name: "search",
  description: "local search",
  inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  execute: async ({ q }) => q,
});

const chat = {
  unsafeDynamicTools: [
    {
      name: "pick_file",
      description: "Ask the user to pick a file",
      input_schema: { type: "object", properties: { glob: { type: "string" } } },
    },
    { name: "confirm" },
  ],
};

describe("modelTools", () => {
  it("offers local and dynamic tools with their schemas and no execute", async () => {
    const { set, dynamicNames } = modelTools(chat, localToolRegistry([search]));
    expect(Object.keys(set).sort()).toEqual(["confirm", "pick_file", "search"]);
    expect([...dynamicNames].sort()).toEqual(["confirm", "pick_file"]);
    for (const t of Object.values(set)) expect(t.execute).toBeUndefined();
    expect(set["pick_file"]?.description).toBe("Ask the user to pick a file");
    const schema = set["pick_file"]?.inputSchema as { jsonSchema: unknown };
    expect(await schema.jsonSchema).toEqual({ type: "object", properties: { glob: { type: "string" } } });
    const confirm = set["confirm"]?.inputSchema as { jsonSchema: unknown };
    expect(await confirm.jsonSchema).toEqual({ type: "object", properties: {} });
  });

  it("lets a dynamic tool shadow a local tool of the same name", () => {
    const { set, dynamicNames } = modelTools(
      { unsafeDynamicTools: [{ name: "search", description: "client search" }] },
      localToolRegistry([search]),
    );
    expect(set["search"]?.description).toBe("client search");
    expect(dynamicNames.has("search")).toBe(true);
  });

  it("works for a chat without dynamic tools", () => {
    expect(modelTools({ unsafeDynamicTools: null })).toEqual({ set: {}, dynamicNames: new Set() });
  });
});

describe("isDynamicTool", () => {
  it("is true only for the chat's dynamic tools", () => {
    expect(isDynamicTool(chat, "confirm")).toBe(true);
    expect(isDynamicTool(chat, "search")).toBe(false);
    expect(isDynamicTool({ unsafeDynamicTools: null }, "confirm")).toBe(false);
  });
});

describe("localToolRegistry", () => {
  it("refuses two tools with one name", () => {
    expect(() => localToolRegistry([search, search])).toThrow(/registered twice/);
  });
});
