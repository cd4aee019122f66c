/**
 * Stored message parts to Coder's shapes: the provider-run tool's call and result leave as
 * `tool-call` / `tool-result` marked `provider_executed`, the replay data only the provider reads
 * left out; everything else leaves as stored, and content with nothing to change is not copied.
 */
import { describe, expect, it } from "vitest";
import type { ChatMessagePart } from "../../../src/db/schema/chats";
import { partsToWire, visibleProviderResult } from "../../../src/wire/message-part";

const call: ChatMessagePart = {
  type: "provider-tool-call",
  tool_call_id: "ws1",
  tool_name: "web_search",
  args: { query: "weather" },
  provider: "anthropic",
};
const result: ChatMessagePart = {
  type: "provider-tool-result",
  tool_call_id: "ws1",
  tool_name: "web_search",
  result: [
    { url: "https://a.example", title: "A", encryptedContent: "opaque-a", type: "web_search_result" },
    { url: "https://b.example", title: "B" },
  ],
  is_error: false,
  provider: "anthropic",
};

describe("partsToWire", () => {
  it("hands back the stored array itself when no part needs mapping", () => {
    const content: ChatMessagePart[] = [
      { type: "text", text: "hi" },
      { type: "reasoning", text: "thinking" },
      { type: "tool-call", tool_call_id: "c1", tool_name: "read", args: { path: "a" } },
      { type: "tool-result", tool_call_id: "c1", tool_name: "read", result: "ok", is_error: false },
      { type: "file", file_id: "0b5c1f1e-7a43-4c55-9d8b-1c0b2f6b8c11", media_type: "image/png", name: "a.png" },
      { type: "source", url: "https://a.example" },
    ];
    expect(partsToWire(content)).toBe(content);
  });

  it("maps the provider's call and result to Coder's tool-call / tool-result, in place, leaving the rest as stored", () => {
    const text: ChatMessagePart = { type: "text", text: "It is sunny." };
    const source: ChatMessagePart = { type: "source", url: "https://a.example", title: "A" };
    const wire = partsToWire([{ type: "reasoning", text: "search first" }, call, result, source, text]);
    expect(wire).toEqual([
      { type: "reasoning", text: "search first" },
      {
        type: "tool-call",
        tool_call_id: "ws1",
        tool_name: "web_search",
        args: { query: "weather" },
        provider_executed: true,
        provider: "anthropic",
      },
      {
        type: "tool-result",
        tool_call_id: "ws1",
        tool_name: "web_search",
        result: [
          { url: "https://a.example", title: "A", type: "web_search_result" },
          { url: "https://b.example", title: "B" },
        ],
        is_error: false,
        provider_executed: true,
        provider: "anthropic",
      },
      source,
      text,
    ]);
    // The parts that did not change are the stored objects, not copies.
    expect(wire[3]).toBe(source);
    expect(wire[4]).toBe(text);
  });

  it("leaves the stored row untouched (the next prompt replays the opaque content)", () => {
    const stored = structuredClone(result);
    partsToWire([call, stored]);
    expect(stored).toEqual(result);
  });

  it("keeps a failed search's error object as the result", () => {
    const failed: ChatMessagePart = {
      ...result,
      result: { type: "web_search_tool_result_error", errorCode: "max_uses_exceeded" },
      is_error: true,
    };
    expect(partsToWire([failed])).toEqual([
      {
        type: "tool-result",
        tool_call_id: "ws1",
        tool_name: "web_search",
        result: { type: "web_search_tool_result_error", errorCode: "max_uses_exceeded" },
        is_error: true,
        provider_executed: true,
        provider: "anthropic",
      },
    ]);
  });
});

describe("visibleProviderResult", () => {
  it("is the same value when no item carries opaque content", () => {
    const openai = { action: { type: "search", query: "q" }, sources: [{ type: "url", url: "https://a.example" }] };
    expect(visibleProviderResult(openai)).toBe(openai);
    const list = [{ url: "https://a.example" }];
    expect(visibleProviderResult(list)).toBe(list);
  });
});
