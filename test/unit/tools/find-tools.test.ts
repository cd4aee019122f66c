/** MCP tool search's pure parts (docs/mcp.md#tool-search): ranking, what find_tools answers, what history says was found. */
import { describe, expect, it } from "vitest";
import type { HistoryRow } from "../../../src/llm/active-history";
import { toolStepOf } from "../../../src/tools/chat-tools";
import { FIND_TOOLS_MAX_LIMIT, findToolsTool, foundToolNames, rankTools } from "../../../src/tools/find-tools";

const catalog = [
  { name: "files__read_file", description: "Read a file from the repository." },
  { name: "files__write_file", description: "Write a file." },
  { name: "issues__search", description: "Search issues by text; returns matching files too." },
  { name: "calendar__list_events", description: "List calendar events." },
];

const row = (id: number, role: HistoryRow["role"], content: HistoryRow["content"], over: Partial<HistoryRow> = {}): HistoryRow => ({
  id,
  role,
  content,
  deleted: false,
  modelOnly: false,
  compressed: false,
  ...over,
});
const found = (id: string, names: string[]) =>
  row(0, "tool", [
    {
      type: "tool-result",
      tool_call_id: id,
      tool_name: "find_tools",
      result: { tools: names.map((name) => ({ name, description: "" })) },
      is_error: false,
    },
  ]);
const call = (at: number, id: string, name = "find_tools") =>
  row(at, "assistant", [{ type: "tool-call", tool_call_id: id, tool_name: name, args: {} }]);

describe("rankTools", () => {
  it("ranks name matches over description matches, keeps catalog order on ties, leaves out non-matches", () => {
    expect(rankTools("file", catalog, 10).map((t) => t.name)).toEqual(["files__read_file", "files__write_file", "issues__search"]);
    expect(rankTools("read FILE", catalog, 10).map((t) => t.name)[0]).toBe("files__read_file");
    expect(rankTools("calendar", catalog, 10).map((t) => t.name)).toEqual(["calendar__list_events"]);
    expect(rankTools("nothing-like-it", catalog, 10)).toEqual([]);
    expect(rankTools("  ", catalog, 10)).toEqual([]);
    expect(rankTools("file", catalog, 1)).toHaveLength(1);
  });
});

describe("find_tools", () => {
  const finder = findToolsTool(catalog, ["files", "issues", "calendar"]);
  const run = (args: unknown) => finder.execute(args, { abortSignal: new AbortController().signal, toolCallId: "t" });

  it("is read-only, names the catalog's size and servers, answers names and descriptions", async () => {
    expect(finder.readOnly).toBe(true);
    expect(finder.description).toContain("4 tools");
    expect(finder.description).toContain("files, issues, calendar");
    expect(await run({ query: "calendar events" })).toEqual({
      tools: [{ name: "calendar__list_events", description: "List calendar events." }],
      note: expect.stringContaining("next step"),
    });
    expect(((await run({ query: "file", limit: 1 })) as { tools: unknown[] }).tools).toHaveLength(1);
    expect(((await run({ query: "file", limit: 10_000 })) as { tools: unknown[] }).tools.length).toBeLessThanOrEqual(FIND_TOOLS_MAX_LIMIT);
  });

  it("refuses a missing query", async () => {
    await expect(run({})).rejects.toThrow(/query/);
  });
});

describe("found tools and the turn's search", () => {
  it("collects the names find_tools returned in the prompt's rows, not before the newest compaction", () => {
    const history = [row(1, "user", [{ type: "text", text: "hi" }]), call(2, "a"), { ...found("a", ["files__read_file"]), id: 3 }];
    expect([...foundToolNames(history)]).toEqual(["files__read_file"]);
    // A compaction boundary after it (a compressed model-only anchor): the model no longer sees the result.
    const compacted = [...history, row(4, "user", [{ type: "text", text: "summary" }], { compressed: true, modelOnly: true })];
    expect([...foundToolNames(compacted)]).toEqual([]);
    // An error result names nothing.
    const failed = [
      call(1, "b"),
      row(2, "tool", [{ type: "tool-result", tool_call_id: "b", tool_name: "find_tools", result: { error: "x" }, is_error: true }]),
    ];
    expect([...foundToolNames(failed)]).toEqual([]);
  });

  it("knows the turn by its prompt's id, and whether the turn already called find_tools", () => {
    const earlier = [row(1, "user", [{ type: "text", text: "a" }]), call(2, "x"), { ...found("x", []), id: 3 }, row(4, "assistant", [])];
    expect(toolStepOf([...earlier, row(5, "user", [{ type: "text", text: "b" }])])).toMatchObject({ turn: 5, searchedThisTurn: false });
    expect(toolStepOf(earlier)).toMatchObject({ turn: 1, searchedThisTurn: true });
    expect(toolStepOf([])).toMatchObject({ turn: -1, searchedThisTurn: false });
  });
});
