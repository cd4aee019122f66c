// Provider web search: the setting (validated, off by default), the tool per transport, and the
// stored parts going back into a prompt, natively or as text. Over the wire: test/node/web-search-wire.test.ts.
import { simulateReadableStream } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import type { ChatMessagePart } from "../../../src/db/schema/chats";
import { buildPrompt } from "../../../src/llm/prompt";
import { providerOptionsFor } from "../../../src/llm/provider-options";
import { replayableProviderCalls } from "../../../src/llm/provider-tool-parts";
import { providerToolsFor, WEB_SEARCH_TOOL, withProviderTools } from "../../../src/llm/provider-tools";
import { runModelStep } from "../../../src/llm/step";
import { modelTools } from "../../../src/llm/tools";
import {
  AnthropicProviderOptionsSchema,
  OpenAIProviderOptionsSchema,
  webSearchSettings,
} from "../../../src/model-configs/web-search-options";
import type { StreamPart } from "../../../src/wire/stream-part";
import { History } from "./history-rows";

const openaiOn = { provider_options: { openai: { web_search_enabled: true, search_context_size: "low", allowed_domains: ["a.example"] } } };
const anthropicOn = { provider_options: { anthropic: { web_search_enabled: true, blocked_domains: ["b.example"], max_uses: 2 } } };

describe("the web search setting", () => {
  it("is off unless web_search_enabled is true, and reads its fields per provider", () => {
    expect(webSearchSettings({}, "openai")).toBeNull();
    expect(webSearchSettings({ provider_options: { openai: { web_search_enabled: false } } }, "openai")).toBeNull();
    expect(webSearchSettings(openaiOn, "anthropic")).toBeNull();
    expect(webSearchSettings(openaiOn, "openai")).toEqual({ searchContextSize: "low", allowedDomains: ["a.example"] });
    expect(webSearchSettings(anthropicOn, "anthropic")).toEqual({ blockedDomains: ["b.example"], maxUses: 2 });
    // Stored before the check, malformed: read as off rather than sent.
    expect(webSearchSettings({ provider_options: { anthropic: { web_search_enabled: true, max_uses: 0 } } }, "anthropic")).toBeNull();
  });

  it("refuses what the providers would refuse, and passes other options through", () => {
    expect(OpenAIProviderOptionsSchema.safeParse({ web_search_enabled: "yes" }).success).toBe(false);
    expect(OpenAIProviderOptionsSchema.safeParse({ search_context_size: "huge" }).success).toBe(false);
    expect(OpenAIProviderOptionsSchema.safeParse({ allowed_domains: ["https://a.example"] }).success).toBe(false);
    expect(OpenAIProviderOptionsSchema.safeParse({ allowed_domains: Array.from({ length: 101 }, (_, i) => `d${i}.example`) }).success).toBe(
      false,
    );
    expect(AnthropicProviderOptionsSchema.safeParse({ allowed_domains: ["a.example"], blocked_domains: ["b.example"] }).success).toBe(
      false,
    );
    expect(AnthropicProviderOptionsSchema.safeParse({ max_uses: 51 }).success).toBe(false);
    expect(OpenAIProviderOptionsSchema.parse({ web_search_enabled: true, service_tier: "flex" })).toEqual({
      web_search_enabled: true,
      service_tier: "flex",
    });
    expect(AnthropicProviderOptionsSchema.parse({ allowed_domains: ["docs.example/api"], sendReasoning: true })).toEqual({
      allowed_domains: ["docs.example/api"],
      sendReasoning: true,
    });
  });

  it("is tool wiring: no request option carries its fields", () => {
    expect(providerOptionsFor("anthropic-messages", { model: "claude-sonnet-4-6", options: anthropicOn })).toEqual({ anthropic: {} });
    expect(providerOptionsFor("openai-responses", { model: "gpt-5", options: openaiOn })).toEqual({ openai: {} });
  });
});

describe("providerToolsFor", () => {
  it("offers the provider's web search tool on Responses and Anthropic, nothing on Chat Completions", () => {
    const responses = providerToolsFor("openai-responses", { options: openaiOn });
    expect(responses.tools.family).toBe("openai");
    expect(responses.tools.set[WEB_SEARCH_TOOL]).toMatchObject({ type: "provider", id: "openai.web_search" });
    expect((responses.tools.set[WEB_SEARCH_TOOL] as { args: unknown }).args).toEqual({
      searchContextSize: "low",
      filters: { allowedDomains: ["a.example"] },
    });
    const messages = providerToolsFor("anthropic-messages", { options: anthropicOn });
    expect(messages.tools.set[WEB_SEARCH_TOOL]).toMatchObject({ type: "provider", id: "anthropic.web_search_20250305" });
    expect(providerToolsFor("openai-chat", { options: openaiOn }).tools.names.size).toBe(0);
    expect(providerToolsFor("openai-compatible-chat", { options: openaiOn }).tools.names.size).toBe(0);
    expect(providerToolsFor("anthropic-messages", { options: {} }).tools).toMatchObject({ family: "anthropic", names: new Set() });
  });

  it("is shadowed by a chat tool of the same name, which the model then sees alone", () => {
    const choice = providerToolsFor("anthropic-messages", { options: anthropicOn }, new Set([WEB_SEARCH_TOOL]));
    expect(choice.shadowed).toEqual([WEB_SEARCH_TOOL]);
    expect(choice.tools.names.size).toBe(0);
    const chat = { unsafeDynamicTools: [{ name: WEB_SEARCH_TOOL, description: "mine" }] };
    const merged = withProviderTools(modelTools(chat), providerToolsFor("anthropic-messages", { options: anthropicOn }).tools);
    expect(merged.set[WEB_SEARCH_TOOL]).toMatchObject({ description: "mine" });
  });
});

const call = (provider: string, id = "srvtoolu_1"): ChatMessagePart => ({
  type: "provider-tool-call",
  tool_call_id: id,
  tool_name: "web_search",
  args: { query: "q" },
  provider,
});
const anthropicResult = (id = "srvtoolu_1"): ChatMessagePart => ({
  type: "provider-tool-result",
  tool_call_id: id,
  tool_name: "web_search",
  // The SDK's stream leaves an absent title out; its prompt schema wants null.
  result: [{ url: "https://p.example/1", pageAge: null, encryptedContent: "enc", type: "web_search_result" }],
  is_error: false,
  provider: "anthropic",
});
const anthropicReplay = { family: "anthropic" as const, names: new Set([WEB_SEARCH_TOOL]) };

describe("stored provider parts in a prompt", () => {
  it("go back natively as a call and its result when the wire and the tool match", () => {
    const h = new History();
    h.user("search");
    h.add("assistant", [
      call("anthropic"),
      anthropicResult(),
      { type: "source", url: "https://p.example/1" },
      { type: "text", text: "found" },
    ]);
    const { messages } = buildPrompt({ chat: { systemPrompt: "" }, history: h.rows, providerTools: anthropicReplay });
    expect(messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "tool-call", toolCallId: "srvtoolu_1", toolName: "web_search", input: { query: "q" }, providerExecuted: true },
        {
          type: "tool-result",
          toolCallId: "srvtoolu_1",
          toolName: "web_search",
          output: {
            type: "json",
            value: [{ url: "https://p.example/1", title: null, pageAge: null, encryptedContent: "enc", type: "web_search_result" }],
          },
        },
        { type: "text", text: "found" },
      ],
    });
  });

  it("go back as text for another wire, without the tool, or when half of the pair is missing or unreadable", () => {
    const pair = [call("anthropic"), anthropicResult()];
    expect(replayableProviderCalls(pair, anthropicReplay)).toEqual(new Set(["srvtoolu_1"]));
    expect(replayableProviderCalls(pair, { family: "openai", names: new Set([WEB_SEARCH_TOOL]) }).size).toBe(0);
    expect(replayableProviderCalls(pair, { family: "anthropic", names: new Set() }).size).toBe(0);
    expect(replayableProviderCalls(pair, undefined).size).toBe(0);
    expect(replayableProviderCalls([call("anthropic")], anthropicReplay).size).toBe(0);
    const opaqueLost = { ...anthropicResult(), result: [{ url: "https://p.example/1" }] } as ChatMessagePart;
    expect(replayableProviderCalls([call("anthropic"), opaqueLost], anthropicReplay).size).toBe(0);

    const h = new History();
    h.user("search");
    h.add("assistant", [call("anthropic"), anthropicResult(), { type: "text", text: "found" }]);
    const { messages } = buildPrompt({ chat: { systemPrompt: "" }, history: h.rows });
    expect(messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: '[web_search call: {"query":"q"}]' },
        { type: "text", text: "[web_search result: <https://p.example/1>]" },
        { type: "text", text: "found" },
      ],
    });
  });
});

describe("the model step", () => {
  it("records a failed provider search as an error result, not as a call for the runner to answer", async () => {
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
    const model = new MockLanguageModelV3({
      provider: "anthropic.messages",
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: "stream-start", warnings: [] },
            { type: "tool-input-start", id: "s1", toolName: "web_search", providerExecuted: true },
            { type: "tool-input-delta", id: "s1", delta: '{"query":"q"}' },
            { type: "tool-input-end", id: "s1" },
            { type: "tool-call", toolCallId: "s1", toolName: "web_search", input: '{"query":"q"}', providerExecuted: true },
            {
              type: "tool-result",
              toolCallId: "s1",
              toolName: "web_search",
              result: { type: "web_search_tool_result_error", errorCode: "max_uses_exceeded" },
              isError: true,
            },
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "sorry" },
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: { unified: "stop", raw: "end_turn" }, usage },
          ],
        }) as ReadableStream<never>,
      }),
    });
    const parts: StreamPart[] = [];
    const tools = withProviderTools(
      modelTools({ unsafeDynamicTools: null }),
      providerToolsFor("anthropic-messages", { options: anthropicOn }).tools,
    );
    const outcome = await runModelStep({
      model,
      prompt: { messages: [{ role: "user", content: "hi" }] },
      tools,
      abortSignal: new AbortController().signal,
      onPart: (p) => parts.push(p),
    });
    expect(outcome.kind).toBe("response");
    if (outcome.kind !== "response") return;
    expect(outcome.toolCalls).toEqual([]);
    expect(outcome.toolErrors).toEqual([]);
    expect(outcome.assistant).toEqual([
      { type: "provider-tool-call", tool_call_id: "s1", tool_name: "web_search", args: { query: "q" }, provider: "anthropic" },
      {
        type: "provider-tool-result",
        tool_call_id: "s1",
        tool_name: "web_search",
        result: { type: "web_search_tool_result_error", errorCode: "max_uses_exceeded" },
        is_error: true,
        provider: "anthropic",
      },
      { type: "text", text: "sorry" },
    ]);
    // The query the provider streamed is not shown as a call being written.
    expect(parts).toEqual([
      {
        type: "tool-call",
        tool_call_id: "s1",
        tool_name: "web_search",
        args: { query: "q" },
        provider: "anthropic",
        provider_executed: true,
      },
      {
        type: "tool-result",
        tool_call_id: "s1",
        tool_name: "web_search",
        result: { type: "web_search_tool_result_error", errorCode: "max_uses_exceeded" },
        is_error: true,
        provider: "anthropic",
        provider_executed: true,
      },
      { type: "text", text: "sorry" },
    ]);
  });
});
