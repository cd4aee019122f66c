import { describe, expect, it } from "vitest";
import { McpToolError, toolResultFor } from "../../../src/mcp/tool-result";

describe("MCP tool results for the model", () => {
  it("joins text, names other content, carries structured content", () => {
    expect(
      toolResultFor({
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toEqual({ content: "a\nb" });
    expect(
      toolResultFor({
        content: [
          { type: "image", mimeType: "image/png" },
          { type: "resource_link", uri: "file:///x", name: "x" },
        ],
        structuredContent: { n: 1 },
      }),
    ).toEqual({ content: "[image image/png]\n[resource link file:///x (x)]", structured_content: { n: 1 } });
  });

  it("an isError result throws, so the call is an error tool result", () => {
    expect(() => toolResultFor({ content: [{ type: "text", text: "nope" }], isError: true })).toThrow(McpToolError);
    expect(() => toolResultFor({ isError: true })).toThrow("the MCP tool reported an error");
  });
});
