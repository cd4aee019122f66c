// What an interrupted attempt commits from the parts it streamed (interrupt.ts partialContent).
import { describe, expect, it } from "vitest";
import { partialContent } from "../../../src/chat-worker/tasks/interrupt";
import type { StreamPart } from "../../../src/wire/stream-part";

describe("partialContent", () => {
  it("joins text and reasoning deltas, keeps complete calls, and leaves out fragments and the provider's calls", () => {
    const streamed: StreamPart[] = [
      { type: "reasoning", text: "think " },
      { type: "reasoning", text: "more" },
      { type: "text", text: "Hel" },
      { type: "text", text: "lo" },
      { type: "tool-call", tool_call_id: "w", tool_name: "web_search", args: { query: "q" }, provider_executed: true, provider: "openai" },
      {
        type: "tool-result",
        tool_call_id: "w",
        tool_name: "web_search",
        result: [],
        is_error: false,
        provider_executed: true,
        provider: "openai",
      },
      { type: "tool-call", tool_call_id: "c1", tool_name: "pick", args_delta: '{"n":' },
      { type: "tool-call", tool_call_id: "c1", tool_name: "pick", args_delta: "1}" },
      { type: "tool-call", tool_call_id: "c1", tool_name: "pick", args: { n: 1 } },
      { type: "tool-call", tool_call_id: "c2", tool_name: "pick", args_delta: '{"n":' },
      { type: "warning", code: "mcp_connect_failed", message: "skipped" },
    ];
    expect(partialContent(streamed)).toEqual([
      { type: "reasoning", text: "think more" },
      { type: "text", text: "Hello" },
      { type: "tool-call", tool_call_id: "c1", tool_name: "pick", args: { n: 1 } },
    ]);
  });
});
