// Provider web search over the real AI SDK providers and the fake model's real wires: the runner's
// model step (src/llm/step.ts) records the provider's call, its result and the pages as parts, and
// the prompt built from them on the next call is accepted by the same wire, which checks it as the
// real API does (docs/fake-model.md "Web search"). The refusals show the checks can fail.
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeModel, type FakeModelServer } from "../../scripts/fake-model/server";
import { encryptedContent, searchResults } from "../../scripts/fake-model/web-search";
import type { ChatMessagePart } from "../../src/db/schema/chats";
import type { ModelConfigOptions } from "../../src/model-configs/options";
import { buildPrompt } from "../../src/llm/prompt";
import type { ChatLanguageModel } from "../../src/llm/provider";
import { providerOptionsFor } from "../../src/llm/provider-options";
import { NO_PROVIDER_TOOLS, type ProviderTools, providerToolsFor } from "../../src/llm/provider-tools";
import { runModelStep } from "../../src/llm/step";
import { modelTools } from "../../src/llm/tools";
import type { ModelTransport } from "../../src/llm/transport";
import { partsToWire } from "../../src/wire/message-part";
import type { StreamPart, StreamProviderToolResult } from "../../src/wire/stream-part";
import { History } from "../unit/llm/history-rows";

let fake: FakeModelServer;
/** Every request body the providers sent, newest last: what went over the wire. */
const bodies: Record<string, unknown>[] = [];
const capture: typeof fetch = async (input, init) => {
  if (typeof init?.body === "string") bodies.push(JSON.parse(init.body) as Record<string, unknown>);
  return fetch(input, init);
};
beforeAll(async () => {
  fake = await startFakeModel({ port: 0 });
});
afterAll(() => fake.close());

interface Wire {
  name: string;
  transport: Extract<ModelTransport, "openai-responses" | "anthropic-messages">;
  family: "openai" | "anthropic";
  model(): ChatLanguageModel;
  options: ModelConfigOptions;
  /** The search as the next request carries it back. */
  replayed(body: Record<string, unknown>, callId: string): unknown;
  /** The tool as the request offers it. */
  tool: Record<string, unknown>;
}

const on = { web_search_enabled: true };
const WIRES: Wire[] = [
  {
    name: "OpenAI Responses (stored responses: the search goes back by reference)",
    transport: "openai-responses",
    family: "openai",
    model: () => createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "x", fetch: capture }).responses("gpt-5"),
    options: { provider_options: { openai: on } },
    replayed: (body) =>
      (body.input as Record<string, unknown>[]).filter((i) => i.type === "item_reference" || i.type === "web_search_call"),
    tool: { type: "web_search" },
  },
  {
    name: "OpenAI Responses (store: false: the search goes back as an item)",
    transport: "openai-responses",
    family: "openai",
    model: () => createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "x", fetch: capture }).responses("gpt-5"),
    options: { provider_options: { openai: { ...on, store: false } } },
    replayed: (body) =>
      (body.input as Record<string, unknown>[]).filter((i) => i.type === "item_reference" || i.type === "web_search_call"),
    tool: { type: "web_search" },
  },
  {
    name: "Anthropic Messages",
    transport: "anthropic-messages",
    family: "anthropic",
    model: () => createAnthropic({ baseURL: `${fake.url}/v1`, apiKey: "x", fetch: capture })("claude-sonnet-4-6"),
    options: { provider_options: { anthropic: { ...on, max_uses: 3 } } },
    replayed: (body) =>
      (body.messages as { role: string; content: unknown }[])
        .flatMap((m) => (Array.isArray(m.content) ? (m.content as Record<string, unknown>[]) : []))
        .filter((b) => b.type === "server_tool_use" || b.type === "web_search_tool_result")
        .map((b) => b.type),
    tool: { type: "web_search_20250305", name: "web_search", max_uses: 3 },
  },
];

async function call(wire: Wire, history: History, provider: ProviderTools, options = wire.options) {
  const parts: StreamPart[] = [];
  const outcome = await runModelStep({
    model: wire.model(),
    prompt: buildPrompt({ chat: { systemPrompt: "" }, history: history.rows, providerTools: provider }),
    tools: { ...modelTools({ unsafeDynamicTools: null }), set: provider.set },
    providerOptions: providerOptionsFor(wire.transport, { model: "m", options }),
    abortSignal: new AbortController().signal,
    onPart: (part) => parts.push(part),
  });
  if (outcome.kind !== "response") throw new Error("aborted");
  return { outcome, parts };
}

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return (error as Error).message;
}

describe.each(WIRES)("web search over $name", (wire) => {
  it("records the call, its result and the pages as parts, and the next call replays them natively", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const provider = providerToolsFor(wire.transport, { options: wire.options }).tools;
    expect([...provider.names]).toEqual(["web_search"]);
    const history = new History();
    history.user(`/web-search weather ${tag} :: It is sunny ${tag}.`);
    const { outcome, parts } = await call(wire, history, provider);

    const types = outcome.assistant.map((p) => p.type);
    expect(types).toEqual(["provider-tool-call", "provider-tool-result", "source", "source", "text"]);
    const [callPart, resultPart] = outcome.assistant as [
      Extract<ChatMessagePart, { type: "provider-tool-call" }>,
      Extract<ChatMessagePart, { type: "provider-tool-result" }>,
    ];
    expect(callPart).toMatchObject({ tool_name: "web_search", provider: wire.family });
    expect(resultPart).toMatchObject({
      tool_call_id: callPart.tool_call_id,
      tool_name: "web_search",
      is_error: false,
      provider: wire.family,
    });
    const pages = searchResults(`weather ${tag}`);
    expect(outcome.assistant.filter((p) => p.type === "source")).toEqual(
      pages.map((p) => expect.objectContaining({ type: "source", url: p.url })),
    );
    expect(outcome.assistant.at(-1)).toEqual({ type: "text", text: `It is sunny ${tag}.` });
    // Nothing for the runner to run: the provider ran it.
    expect(outcome.toolCalls).toEqual([]);
    expect(outcome.finishReason).toBe("stop");

    if (wire.family === "anthropic") {
      expect(callPart.args).toEqual({ query: `weather ${tag}` });
      expect(resultPart.result).toEqual(pages.map((p) => expect.objectContaining({ url: p.url, encryptedContent: encryptedContent(p) })));
    } else {
      expect(resultPart.result).toMatchObject({ action: { type: "search", query: `weather ${tag}` } });
    }
    // The stream shows the same call and result, without the opaque content; no tool input streams as a call.
    // Coder's shapes: the provider's call and result are tool-call / tool-result marked provider_executed.
    expect(parts.filter((p) => p.type !== "text").map((p) => [p.type, "provider_executed" in p ? p.provider_executed : undefined])).toEqual(
      [
        ["tool-call", true],
        ["tool-result", true],
        ["source", undefined],
        ["source", undefined],
      ],
    );
    const streamedResult = parts.find((p) => p.type === "tool-result") as StreamProviderToolResult;
    expect(JSON.stringify(streamedResult.result)).not.toContain("encryptedContent");
    // Committed, the message carries to clients what the stream carried (the text aside, which streams in pieces).
    expect(partsToWire(outcome.assistant).filter((p) => p.type !== "text")).toEqual(parts.filter((p) => p.type !== "text"));

    // The next turn: the history goes back with the search in the provider's own shape, accepted.
    history.add("assistant", outcome.assistant);
    history.user(`and tomorrow ${tag}?`);
    const next = await call(wire, history, provider);
    expect(next.outcome.assistant).toEqual([{ type: "text", text: `and tomorrow ${tag}?` }]);
    const body = bodies.at(-1)!;
    expect(body.tools).toEqual([expect.objectContaining(wire.tool)]);
    const id = callPart.tool_call_id;
    if (wire.family === "anthropic") expect(wire.replayed(body, id)).toEqual(["server_tool_use", "web_search_tool_result"]);
    else if (wire.options.provider_options?.openai && (wire.options.provider_options.openai as { store?: boolean }).store === false)
      expect(wire.replayed(body, id)).toEqual([expect.objectContaining({ type: "web_search_call", id, status: "completed" })]);
    else expect(wire.replayed(body, id)).toEqual([{ type: "item_reference", id }]);
  });

  it("without the tool offered (setting off, or another wire) the search goes back as text", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const provider = providerToolsFor(wire.transport, { options: wire.options }).tools;
    const history = new History();
    history.user(`/web-search rain ${tag} :: Bring an umbrella.`);
    const first = await call(wire, history, provider);
    history.add("assistant", first.outcome.assistant);
    history.user(`/web-search snow ${tag} :: no tool`);
    // Turned off since: nothing offered, and the earlier search is plain text the wire takes as such.
    const off = await call(wire, history, { ...NO_PROVIDER_TOOLS, family: wire.family });
    expect(off.outcome.assistant).toEqual([{ type: "text", text: "web search not offered: no tool" }]);
    const prompt = buildPrompt({ chat: { systemPrompt: "" }, history: history.rows, providerTools: NO_PROVIDER_TOOLS });
    const replayed = JSON.stringify(prompt.messages[1]);
    expect(replayed).toContain(`[web_search call:`);
    expect(replayed).toContain(searchResults(`rain ${tag}`)[0]!.url);
    expect(replayed).not.toContain("fakeenc_");
  });
});

describe("the fake model refuses replayed searches the real APIs refuse", () => {
  const anthropic = WIRES[2]!;
  const stored = WIRES[0]!;
  const unstored = WIRES[1]!;

  async function searched(wire: Wire, tag: string) {
    const provider = providerToolsFor(wire.transport, { options: wire.options }).tools;
    const history = new History();
    history.user(`/web-search q ${tag} :: answer ${tag}`);
    const { outcome } = await call(wire, history, provider);
    history.add("assistant", outcome.assistant);
    history.user(`next ${tag}`);
    return { history, provider, assistant: history.rows[1]! };
  }

  it("Anthropic: a result whose encrypted content was altered", async () => {
    const { history, provider, assistant } = await searched(anthropic, crypto.randomUUID().slice(0, 8));
    const result = assistant.content[1] as Extract<ChatMessagePart, { type: "provider-tool-result" }>;
    result.result = (result.result as { encryptedContent: string }[]).map((r) => ({ ...r, encryptedContent: `${r.encryptedContent}x` }));
    expect(await failure(call(anthropic, history, provider))).toMatch(/encrypted_content: invalid encrypted content/);
  });

  it("Anthropic: a server_tool_use without its result (the prompt builder never sends one: it falls back to text)", async () => {
    const { history, provider, assistant } = await searched(anthropic, crypto.randomUUID().slice(0, 8));
    const res = await fetch(`${fake.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "x", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({
        model: "claude-sonnet-4-6",
        max_tokens: 100,
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: [{ type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } }] },
          { role: "user", content: "next" },
        ],
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/without a corresponding `web_search_tool_result` block/);
    // Dropping the result from the stored message: the call alone goes back as text, and is accepted.
    assistant.content.splice(1, 1);
    const next = await call(anthropic, history, provider);
    expect(next.outcome.assistant.at(-1)?.type).toBe("text");
  });

  it("OpenAI: a reference to a search whose response was not stored", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const { history, provider } = await searched(unstored, tag);
    // Replayed as if responses were stored: by reference to an item the server never kept.
    expect(await failure(call(unstored, history, provider, stored.options))).toMatch(/Item with id 'ws_\d+' not found/);
  });
});
