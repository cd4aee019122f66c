import { describe, expect, it } from "vitest";
import { bounded, McpToolError, toolResultFor } from "../../../src/mcp/tool-result";

const MAX = 65_536;

describe("MCP tool results for the model", () => {
  it("joins text, names other content, carries structured content", () => {
    expect(
      toolResultFor(
        {
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        },
        MAX,
      ),
    ).toEqual({ content: "a\nb" });
    expect(
      toolResultFor(
        {
          content: [
            { type: "image", mimeType: "image/png" },
            { type: "resource_link", uri: "file:///x", name: "x" },
          ],
          structuredContent: { n: 1 },
        },
        MAX,
      ),
    ).toEqual({ content: "[image image/png]\n[resource link file:///x (x)]", structured_content: { n: 1 } });
  });

  it("an isError result throws, so the call is an error tool result", () => {
    expect(() => toolResultFor({ content: [{ type: "text", text: "nope" }], isError: true }, MAX)).toThrow(McpToolError);
    expect(() => toolResultFor({ isError: true }, MAX)).toThrow("the MCP tool reported an error");
  });

  it("cuts output past the limit to its first bytes, with a marker naming both sizes", () => {
    const big = "x".repeat(2_097_152);
    expect(toolResultFor({ content: [{ type: "text", text: big }] }, MAX)).toEqual({
      content: `${"x".repeat(MAX)}\n[output truncated: 2097152 bytes, showing the first 65536]`,
    });
    // Exactly at the limit: as it is.
    expect(toolResultFor({ content: [{ type: "text", text: "x".repeat(MAX) }] }, MAX)).toEqual({ content: "x".repeat(MAX) });
    // Error text too.
    expect(() => toolResultFor({ content: [{ type: "text", text: big }], isError: true }, 1024)).toThrow(
      /^x{1024}\n\[output truncated: 2097152 bytes, showing the first 1024\]$/,
    );
  });

  it("counts structured content, drops it when over, and never cuts inside a character", () => {
    const structuredContent = { rows: "y".repeat(2000) };
    const json = JSON.stringify(structuredContent);
    expect(toolResultFor({ content: [{ type: "text", text: "summary" }], structuredContent }, 4096)).toEqual({
      content: "summary",
      structured_content: structuredContent,
    });
    expect(toolResultFor({ content: [{ type: "text", text: "summary" }], structuredContent }, 1024)).toEqual({
      content: `summary\n[output truncated: ${7 + json.length} bytes, showing the first 7]`,
    });
    // Only structured content: its JSON is what the model reads, cut.
    expect(toolResultFor({ structuredContent }, 1024)).toEqual({
      content: `${json.slice(0, 1024)}\n[output truncated: ${json.length} bytes, showing the first 1024]`,
    });
    // Three-byte characters: 1024 is not a multiple of 3, so the cut backs up to 1023.
    expect(bounded("\u2603".repeat(1000), 0, 1024)).toBe(`${"\u2603".repeat(341)}\n[output truncated: 3000 bytes, showing the first 1023]`);
  });
});
