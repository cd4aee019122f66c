import { describe, expect, it } from "vitest";
import { assignToolNames, MAX_TOOL_NAME_LENGTH, namespacedToolName, TOOL_NAME_PATTERN } from "../../../src/mcp/tool-names";

describe("MCP tool names", () => {
  it("namespaces by server and keeps the provider charset", () => {
    expect(namespacedToolName("github", "search_issues")).toBe("github__search_issues");
    expect(namespacedToolName("My Server", "files/read.v2")).toBe("My_Server__files_read_v2");
    expect(namespacedToolName("", "")).toBe("____");
    expect(namespacedToolName("日本", "ツール")).toMatch(TOOL_NAME_PATTERN);
  });

  it("cuts long names to 64 characters with a hash that keeps them apart", () => {
    const a = namespacedToolName("s".repeat(40), `${"t".repeat(40)}_one`);
    const b = namespacedToolName("s".repeat(40), `${"t".repeat(40)}_two`);
    expect(a).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(a).toMatch(TOOL_NAME_PATTERN);
    expect(a).not.toBe(b);
    expect(namespacedToolName("s".repeat(40), `${"t".repeat(40)}_one`)).toBe(a);
  });

  it("gives tools that sanitize to the same name distinct names, and avoids names already taken", () => {
    const names = assignToolNames(
      [
        { server: "a", tool: "x.y" },
        { server: "a", tool: "x_y" },
        { server: "a", tool: "x-y" },
        { server: "b", tool: "read" },
      ],
      new Set(["b__read"]),
    );
    expect(names).toEqual(["a__x_y", "a__x_y_2", "a__x-y", "b__read_2"]);
    for (const n of names) expect(n).toMatch(TOOL_NAME_PATTERN);
  });
});
