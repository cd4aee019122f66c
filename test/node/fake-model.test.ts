// Exercises the fake model server through the real AI SDK providers over HTTP:
// if these pass, the server's wire formats are what the SDKs actually parse.

import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import type { LanguageModel, ModelMessage, ToolSet } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { startFakeModel } from "../../scripts/fake-model/server";
import { classifyModelError } from "../../src/llm/classify-error";
import type { Endpoint, FakeModelServer } from "../../scripts/fake-model/server";

const API_KEY = "x";
const HANG_ABORT_MS = 200;
/** Generous bound: a hung request must end soon after the abort, not at some socket timeout. */
const HANG_MAX_MS = 2_000;
const SLOW_DELAY_MS = 60;
const LONG_TOKENS = 50;
/** setTimeout may fire a hair early relative to performance.now(); allow a little slack. */
const TIMER_SLACK_MS = 5;

interface ProviderCase {
  name: string;
  endpoint: Endpoint;
  model(url: string): LanguageModel;
  /** Whether the provider reads reasoning off this wire (OpenAI's own Chat Completions sends none). */
  reasoning: boolean;
  /** Whether the wire has text blocks (Chat Completions streams one text). */
  blocks: boolean;
  /** The status a mid-stream `/midstream-error 529` classifies as (OpenAI has no 529: server_error). */
  overloadedStatus: number;
}

const PROVIDERS: ProviderCase[] = [
  {
    name: "openai-chat",
    endpoint: "chat_completions",
    model: (url) => createOpenAI({ baseURL: `${url}/v1`, apiKey: API_KEY }).chat("fake"),
    reasoning: false,
    blocks: false,
    overloadedStatus: 500,
  },
  {
    name: "openai-responses",
    endpoint: "responses",
    model: (url) => createOpenAI({ baseURL: `${url}/v1`, apiKey: API_KEY }).responses("fake"),
    reasoning: true,
    blocks: true,
    overloadedStatus: 500,
  },
  {
    name: "anthropic",
    endpoint: "messages",
    model: (url) => createAnthropic({ baseURL: `${url}/v1`, apiKey: API_KEY })("fake"),
    reasoning: true,
    blocks: true,
    overloadedStatus: 529,
  },
  {
    name: "openai-compatible",
    endpoint: "chat_completions",
    model: (url) => createOpenAICompatible({ name: "fake", baseURL: `${url}/v1`, apiKey: API_KEY, includeUsage: true })("fake"),
    reasoning: true,
    blocks: false,
    overloadedStatus: 500,
  },
];

const weatherInput = jsonSchema<{ city: string; unit: string }>({
  type: "object",
  properties: { city: { type: "string" }, unit: { type: "string" } },
  required: ["city", "unit"],
  additionalProperties: false,
});

/** Declared without `execute`, so the SDK surfaces the call instead of running it. */
const declaredTools = {
  get_weather: tool({ description: "Current weather for a city", inputSchema: weatherInput }),
} satisfies ToolSet;

interface Collected {
  textDeltas: string[];
  text: string;
  /** The text of each text block (by its stream id), in order. */
  textBlocks: string[];
  reasoning: string;
  toolCalls: { toolName: string; input: unknown }[];
  toolInputDeltas: string[];
  finishReason: string | undefined;
  errors: unknown[];
  aborted: boolean;
}

type StreamOptions = {
  maxRetries?: number;
  abortSignal?: AbortSignal;
  tools?: ToolSet;
};

/** Runs streamText and gathers the stream parts, never throwing (errors are collected). */
async function collect(
  model: LanguageModel,
  input: { prompt: string } | { messages: ModelMessage[] },
  options: StreamOptions = {},
): Promise<Collected> {
  const collected: Collected = {
    textDeltas: [],
    text: "",
    textBlocks: [],
    reasoning: "",
    toolCalls: [],
    toolInputDeltas: [],
    finishReason: undefined,
    errors: [],
    aborted: false,
  };
  const result = streamText({
    model,
    ...input,
    ...options,
    // Without onError the SDK logs every scripted error to the console.
    onError: () => {},
  });
  const blocks = new Map<string, string>();
  try {
    for await (const part of result.fullStream) {
      switch (part.type) {
        case "text-delta":
          if (part.text.length > 0) collected.textDeltas.push(part.text);
          collected.text += part.text;
          blocks.set(part.id, (blocks.get(part.id) ?? "") + part.text);
          break;
        case "reasoning-delta":
          collected.reasoning += part.text;
          break;
        case "tool-input-delta":
          collected.toolInputDeltas.push(part.delta);
          break;
        case "tool-call":
          collected.toolCalls.push({ toolName: part.toolName, input: part.input });
          break;
        case "finish":
          collected.finishReason = part.finishReason;
          break;
        case "error":
          collected.errors.push(part.error);
          break;
        case "abort":
          collected.aborted = true;
          break;
        default:
          break;
      }
    }
  } catch (error) {
    collected.errors.push(error);
  }
  collected.textBlocks = [...blocks.values()];
  return collected;
}

function expectApiError(errors: unknown[], statusCode: number, isRetryable: boolean): void {
  expect(errors).toHaveLength(1);
  const error = errors[0];
  expect(APICallError.isInstance(error)).toBe(true);
  if (!APICallError.isInstance(error)) return;
  expect(error.statusCode).toBe(statusCode);
  expect(error.isRetryable).toBe(isRetryable);
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Splits an SSE body into frames of `{ event?, data }`. */
function parseSse(body: string): { event: string | undefined; data: string }[] {
  return body
    .split("\n\n")
    .filter((block) => block.trim().length > 0)
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((line) => line.startsWith("event: "))?.slice("event: ".length);
      const data = lines
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice("data: ".length))
        .join("\n");
      return { event, data };
    });
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${API_KEY}`, ...headers },
    body: JSON.stringify(body),
  });
}

let server: FakeModelServer;
let savedWarningLogger: typeof globalThis.AI_SDK_LOG_WARNINGS;

beforeAll(async () => {
  // The Anthropic provider warns on every call that model "fake" is unknown.
  savedWarningLogger = globalThis.AI_SDK_LOG_WARNINGS;
  globalThis.AI_SDK_LOG_WARNINGS = false;
  server = await startFakeModel({ port: 0 });
});

afterAll(async () => {
  globalThis.AI_SDK_LOG_WARNINGS = savedWarningLogger;
  await server.close();
});

describe.each(PROVIDERS)("fake model via AI SDK $name", (provider) => {
  const model = (): LanguageModel => provider.model(server.url);
  const requestsTo = (): number => server.stats().requests[provider.endpoint];

  it("echoes the prompt token by token with usage", async () => {
    const prompt = `the quick brown fox jumps over ${provider.name}`;
    const result = streamText({ model: model(), prompt });
    const deltas: string[] = [];
    for await (const delta of result.textStream) if (delta.length > 0) deltas.push(delta);

    expect(deltas.join("")).toBe(prompt);
    expect(deltas.length).toBe(prompt.split(" ").length);
    expect(await result.finishReason).toBe("stop");
    const usage = await result.usage;
    // One token per 4 characters of prompt text (scripts/fake-model/context-window.ts).
    expect(usage.inputTokens).toBe(Math.ceil(prompt.length / 4));
    expect(usage.outputTokens).toBe(deltas.length);
  });

  it("/tool produces a tool call with the parsed arguments", async () => {
    const args = { city: "Paris", unit: "celsius" };
    // Pretty-printed on purpose: the arguments may span spaces and newlines.
    const argsJson = JSON.stringify(args, null, 1);
    const collected = await collect(model(), { prompt: `/tool get_weather ${argsJson}` }, { tools: declaredTools });

    expect(collected.errors).toEqual([]);
    expect(collected.toolCalls).toEqual([{ toolName: "get_weather", input: args }]);
    // The arguments were streamed in fragments that the SDK reassembles.
    expect(collected.toolInputDeltas.length).toBeGreaterThan(1);
    expect(collected.toolInputDeltas.join("")).toBe(argsJson);
    expect(collected.finishReason).toBe("tool-calls");
  });

  it("/error 503 2 fails twice then succeeds under the SDK's own retries", async () => {
    const before = requestsTo();
    const collected = await collect(model(), { prompt: `/error 503 2 recovered ${provider.name}` }, { maxRetries: 2 });

    expect(collected.errors).toEqual([]);
    expect(collected.text).toBe(`recovered ${provider.name}`);
    expect(requestsTo() - before).toBe(3);
  });

  it("/error 503 1 /slow paces the reply that follows the failure", async () => {
    const words = ["recovered", "slowly", provider.name];
    const started = performance.now();
    const collected = await collect(model(), { prompt: `/error 503 1 /slow ${SLOW_DELAY_MS} ${words.join(" ")}` }, { maxRetries: 1 });
    const elapsed = performance.now() - started;

    expect(collected.errors).toEqual([]);
    expect(collected.text).toBe(words.join(" "));
    expect(collected.textDeltas).toHaveLength(words.length);
    expect(elapsed).toBeGreaterThanOrEqual((words.length - 1) * SLOW_DELAY_MS - TIMER_SLACK_MS);
  });

  it("/error 503 surfaces a retryable APICallError", async () => {
    const before = requestsTo();
    const collected = await collect(model(), { prompt: `/error 503 always ${provider.name}` }, { maxRetries: 0 });

    expectApiError(collected.errors, 503, true);
    expect(requestsTo() - before).toBe(1);
  });

  it("/error 400 is not retried", async () => {
    const before = requestsTo();
    const collected = await collect(model(), { prompt: `/error 400 ${provider.name}` }, { maxRetries: 2 });

    expectApiError(collected.errors, 400, false);
    expect(requestsTo() - before).toBe(1);
  });

  it("/think streams a reasoning block, then each text block", async () => {
    const collected = await collect(model(), { prompt: `/think weigh ${provider.name} first :: the first block :: the second block` });

    expect(collected.errors).toEqual([]);
    expect(collected.reasoning).toBe(provider.reasoning ? `weigh ${provider.name} first` : "");
    expect(collected.textBlocks).toEqual(provider.blocks ? ["the first block", "the second block"] : ["the first blockthe second block"]);
    expect(collected.finishReason).toBe("stop");
  });

  it("/midstream-error 529 1 streams the first half, then the provider's error event; the next request answers", async () => {
    const prompt = `/midstream-error 529 1 one two three four ${provider.name}`;
    const failed = await collect(model(), { prompt }, { maxRetries: 0 });

    expect(failed.textDeltas).toEqual(["one", " two", " three"]);
    expect(failed.errors).toHaveLength(1);
    // The service reads the provider's own error fields (src/llm/classify-error.ts): retryable.
    expect(classifyModelError(failed.errors[0], provider.name)).toMatchObject({ retryable: true, statusCode: provider.overloadedStatus });

    const answered = await collect(model(), { prompt }, { maxRetries: 0 });
    expect(answered.errors).toEqual([]);
    expect(answered.text).toBe(`one two three four ${provider.name}`);
  });

  it("/slow paces the tokens", async () => {
    const words = ["slowly", "but", "surely", provider.name];
    const started = performance.now();
    const collected = await collect(model(), { prompt: `/slow ${SLOW_DELAY_MS} ${words.join(" ")}` });
    const elapsed = performance.now() - started;

    expect(collected.text).toBe(words.join(" "));
    expect(collected.textDeltas).toHaveLength(words.length);
    expect(elapsed).toBeGreaterThanOrEqual((words.length - 1) * SLOW_DELAY_MS - TIMER_SLACK_MS);
  });

  it("/gate sends the first token, holds the rest until POST /_gates/<name>, then paces it", async () => {
    const gate = `g-${provider.name}-${Date.now()}`;
    const words = ["first", "second", "third"];
    const deltas: { text: string; at: number }[] = [];
    const result = streamText({ model: model(), prompt: `/gate ${gate} 1 ${words.join(" ")}`, onError: () => {} });
    const reading = (async () => {
      for await (const part of result.fullStream)
        if (part.type === "text-delta" && part.text.length > 0) deltas.push({ text: part.text, at: performance.now() });
    })();
    await expect.poll(() => deltas.length, { timeout: 5_000 }).toBe(1);
    expect(
      deltas.map((d) => d.text),
      "nothing past the gate before it opens",
    ).toEqual(["first"]);
    // The proof it held: the second token arrives after the gate opens, however long that took.
    const opened = performance.now();
    expect((await fetch(`${server.url}/_gates/${gate}`, { method: "POST" })).status).toBe(200);
    await reading;
    expect(deltas.map((d) => d.text).join("")).toBe(words.join(" "));
    expect(deltas[1]!.at).toBeGreaterThanOrEqual(opened);
    // An opened gate stays open: a second stream through it is not held.
    expect((await collect(model(), { prompt: `/gate ${gate} 1 again` })).text).toBe("again");
  });

  it("/long streams the requested number of tokens", async () => {
    const collected = await collect(model(), { prompt: `/long ${LONG_TOKENS}` });
    const expected = Array.from({ length: LONG_TOKENS }, (_, i) => `tok${i + 1}`);

    expect(collected.textDeltas).toHaveLength(LONG_TOKENS);
    expect(collected.text.split(" ")).toEqual(expected);
  });

  it("/hang is ended by the client's AbortSignal", async () => {
    const abortedBefore = server.stats().aborted;
    const started = performance.now();
    const collected = await collect(model(), { prompt: "/hang" }, { abortSignal: AbortSignal.timeout(HANG_ABORT_MS), maxRetries: 0 });
    const elapsed = performance.now() - started;

    expect(collected.aborted || collected.errors.length > 0).toBe(true);
    expect(collected.text).toBe("");
    expect(elapsed).toBeGreaterThanOrEqual(HANG_ABORT_MS - TIMER_SLACK_MS);
    expect(elapsed).toBeLessThan(HANG_MAX_MS);
    // The server notices the disconnect and releases the request.
    await waitFor(() => server.stats().aborted > abortedBefore, HANG_MAX_MS);
    await waitFor(() => server.stats().inFlight === 0, HANG_MAX_MS);
  });

  it("answers a tool result with a deterministic text", async () => {
    const toolCallId = `call_manual_${provider.name}`;
    const messages: ModelMessage[] = [
      { role: "user", content: "what is the weather in Paris?" },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId, toolName: "get_weather", input: { city: "Paris", unit: "celsius" } }],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId,
            toolName: "get_weather",
            output: { type: "text", value: `sunny for ${provider.name}` },
          },
        ],
      },
    ];
    const collected = await collect(model(), { messages }, { tools: declaredTools });

    expect(collected.errors).toEqual([]);
    expect(collected.text).toBe(`tool result received: sunny for ${provider.name}`);
    expect(collected.finishReason).toBe("stop");
  });

  it("lets an SDK tool loop run to completion", async () => {
    const result = streamText({
      model: model(),
      prompt: `/tool get_weather {"city": "Oslo", "unit": "${provider.name}"}`,
      tools: {
        get_weather: tool({
          inputSchema: weatherInput,
          execute: async ({ city, unit }) => `cold in ${city} (${unit})`,
        }),
      },
      stopWhen: stepCountIs(3),
    });

    expect(await result.text).toBe(`tool result received: cold in Oslo (${provider.name})`);
    expect(await result.steps).toHaveLength(2);
  });

  it("/tool-loop calls its tool again after every result, until the client's step limit", async () => {
    let runs = 0;
    const result = streamText({
      model: model(),
      prompt: `/tool-loop get_weather {"city": "Oslo", "unit": "${provider.name}"}`,
      tools: {
        get_weather: tool({
          inputSchema: weatherInput,
          execute: async () => `run ${++runs}`,
        }),
      },
      stopWhen: stepCountIs(4),
    });

    const steps = await result.steps;
    expect(steps).toHaveLength(4);
    expect(steps.map((step) => step.toolCalls.map((call) => call.toolName))).toEqual([
      ["get_weather"],
      ["get_weather"],
      ["get_weather"],
      ["get_weather"],
    ]);
    expect(runs).toBe(4);
  });

  it("serves non-streaming requests (generateText)", async () => {
    const prompt = `plain json reply from ${provider.name}`;
    const text = await generateText({ model: model(), prompt });
    expect(text.text).toBe(prompt);
    expect(text.finishReason).toBe("stop");
    expect(text.usage.outputTokens).toBe(prompt.split(" ").length);

    const call = await generateText({
      model: model(),
      prompt: '/tool get_weather {"city": "Rome", "unit": "c"}',
      tools: declaredTools,
    });
    expect(call.finishReason).toBe("tool-calls");
    expect(call.toolCalls.map((c) => ({ toolName: c.toolName, input: c.input }))).toEqual([
      { toolName: "get_weather", input: { city: "Rome", unit: "c" } },
    ]);
  });
});

describe("fake model raw wire formats", () => {
  it("chat completions: data-only frames ending with [DONE], usage chunk when asked", async () => {
    const response = await postJson(`${server.url}/v1/chat/completions`, {
      model: "fake",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: [{ type: "text", text: "hi there" }] }],
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const body = await response.text();
    expect(body.endsWith("data: [DONE]\n\n")).toBe(true);

    const frames = parseSse(body);
    expect(frames.every((frame) => frame.event === undefined)).toBe(true);
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.data) as Record<string, unknown>);
    expect(chunks.every((chunk) => chunk["object"] === "chat.completion.chunk")).toBe(true);
    expect(chunks[0]).toMatchObject({ choices: [{ delta: { role: "assistant" } }] });
    const contentDeltas = chunks
      .slice(1)
      .flatMap((chunk) => (chunk["choices"] as { delta: { content?: string } }[]).map((c) => c.delta.content))
      .filter((content) => content !== undefined);
    expect(contentDeltas).toEqual(["hi", " there"]);
    expect(chunks.at(-2)).toMatchObject({ choices: [{ delta: {}, finish_reason: "stop" }] });
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 },
    });
  });

  it("chat completions: tool call arguments arrive in several fragments", async () => {
    const args = '{"query": "fake model wire format"}';
    const response = await postJson(`${server.url}/v1/chat/completions`, {
      model: "fake",
      stream: true,
      messages: [{ role: "user", content: `/tool search ${args}` }],
    });
    const chunks = parseSse(await response.text())
      .filter((frame) => frame.data !== "[DONE]")
      .map(
        (frame) =>
          JSON.parse(frame.data) as {
            choices: { delta: { tool_calls?: { function: { name?: string; arguments?: string } }[] } }[];
          },
      );
    const toolDeltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);

    expect(toolDeltas[0]?.function.name).toBe("search");
    const fragments = toolDeltas.map((delta) => delta.function.arguments ?? "").filter((s) => s.length > 0);
    expect(fragments.length).toBeGreaterThan(1);
    expect(fragments.join("")).toBe(args);
    expect(chunks.some((chunk) => "usage" in chunk)).toBe(false);
  });

  it("responses: event names match payload types and sequence numbers increase", async () => {
    const response = await postJson(`${server.url}/v1/responses`, {
      model: "fake",
      stream: true,
      input: [{ role: "user", content: [{ type: "input_text", text: "one two three" }] }],
    });
    const frames = parseSse(await response.text());
    const payloads = frames.map((frame) => JSON.parse(frame.data) as { type: string; sequence_number: number });

    expect(frames.map((frame) => frame.event)).toEqual(payloads.map((payload) => payload.type));
    expect(payloads.map((payload) => payload.sequence_number)).toEqual(payloads.map((_, i) => i));
    expect(payloads.map((payload) => payload.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(payloads.at(-1)).toMatchObject({ response: { usage: { input_tokens: 4, output_tokens: 3 } } });
  });

  it("/stamp streams [seq@µs] tokens stamped with their write time; non-streaming requests get a short text", async () => {
    const nowUs = () => Number(process.hrtime.bigint() / 1000n);
    const before = nowUs();
    const chat = await postJson(`${server.url}/v1/chat/completions`, {
      model: "fake",
      stream: true,
      messages: [{ role: "user", content: "/stamp 4 5" }],
    });
    const deltas = parseSse(await chat.text())
      .slice(0, -1)
      .flatMap((frame) => (JSON.parse(frame.data) as { choices: { delta: { content?: string } }[] }).choices)
      .map((choice) => choice.delta.content)
      .filter((content) => content !== undefined && content !== "");
    const after = nowUs();
    const stamps = deltas.map((delta) => /^ \[(\d+)@(\d+)\]$/.exec(delta ?? "")).map((m) => [Number(m?.[1]), Number(m?.[2])]);
    expect(stamps.map(([seq]) => seq)).toEqual([0, 1, 2, 3]);
    const times = stamps.map(([, us]) => us!);
    expect(times[0]).toBeGreaterThanOrEqual(before);
    expect(times[3]).toBeLessThanOrEqual(after);
    // Paced 5 ms apart (a timer may fire a hair early): the times are the writes', not the reply's build.
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(4_000);

    // Responses repeats the text at the end: with the same times.
    const responses = await postJson(`${server.url}/v1/responses`, { model: "fake", stream: true, input: "/stamp 3" });
    const payloads = parseSse(await responses.text()).map(
      (frame) => JSON.parse(frame.data) as { type: string; delta?: string; text?: string },
    );
    const streamed = payloads
      .filter((p) => p.type === "response.output_text.delta")
      .map((p) => p.delta)
      .join("");
    expect(streamed).toMatch(/^ \[0@\d+\] \[1@\d+\] \[2@\d+\]$/);
    expect(payloads.find((p) => p.type === "response.output_text.done")?.text).toBe(streamed);

    const title = await postJson(`${server.url}/v1/chat/completions`, {
      model: "fake",
      messages: [{ role: "user", content: "/stamp 4 5" }],
    });
    expect(((await title.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe("Short title");
  });

  it("responses: function calls open an item, stream argument deltas and close it", async () => {
    const args = '{"path": "/tmp/a b.txt"}';
    const response = await postJson(`${server.url}/v1/responses`, {
      model: "fake",
      stream: true,
      input: `/tool read_file ${args}`,
    });
    const payloads = parseSse(await response.text()).map(
      (frame) => JSON.parse(frame.data) as { type: string; delta?: string; item?: Record<string, unknown> },
    );
    const types = payloads.map((payload) => payload.type);
    const deltas = payloads.filter((payload) => payload.type === "response.function_call_arguments.delta");

    expect(types[2]).toBe("response.output_item.added");
    expect(payloads[2]?.item).toMatchObject({ type: "function_call", name: "read_file", arguments: "" });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((payload) => payload.delta).join("")).toBe(args);
    expect(types.slice(-3)).toEqual(["response.function_call_arguments.done", "response.output_item.done", "response.completed"]);
    expect(payloads.at(-2)?.item).toMatchObject({ type: "function_call", arguments: args, status: "completed" });
  });

  it("anthropic: message_start, ping, content blocks and message_stop with event lines", async () => {
    const response = await postJson(
      `${server.url}/v1/messages`,
      { model: "fake", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hello there" }] },
      { "x-api-key": API_KEY, "anthropic-version": "2023-06-01" },
    );
    const body = await response.text();
    expect(body).toContain("event: message_stop");

    const frames = parseSse(body);
    const types = frames.map((frame) => (JSON.parse(frame.data) as { type: string }).type);
    expect(frames.map((frame) => frame.event)).toEqual(types);
    expect(types).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(JSON.parse(frames[6]?.data ?? "null")).toMatchObject({
      delta: { stop_reason: "end_turn" },
      usage: { output_tokens: 2 },
    });
  });

  it("max tokens truncate the reply with a length finish", async () => {
    const response = await postJson(`${server.url}/v1/messages`, {
      model: "fake",
      max_tokens: 3,
      messages: [{ role: "user", content: "/long 10" }],
    });
    expect(await response.json()).toMatchObject({
      content: [{ type: "text", text: "tok1 tok2 tok3" }],
      stop_reason: "max_tokens",
      usage: { output_tokens: 3 },
    });
  });

  it("error bodies follow each provider's shape", async () => {
    const openai = await postJson(`${server.url}/v1/chat/completions`, {
      model: "fake",
      messages: [{ role: "user", content: "/error 429 raw shape" }],
    });
    expect(openai.status).toBe(429);
    expect(openai.headers.get("retry-after-ms")).not.toBeNull();
    expect(await openai.json()).toMatchObject({ error: { type: "requests", code: "rate_limit_exceeded" } });

    const anthropic = await postJson(`${server.url}/v1/messages`, {
      model: "fake",
      max_tokens: 10,
      messages: [{ role: "user", content: "/error 529 raw shape" }],
    });
    expect(anthropic.status).toBe(529);
    expect(await anthropic.json()).toMatchObject({ type: "error", error: { type: "overloaded_error" } });

    const invalid = await postJson(`${server.url}/v1/responses`, { model: "fake" });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get("retry-after-ms")).toBeNull();
  });

  it("error counts are per prompt, across endpoints", async () => {
    const prompt = "/error 500 1 shared across endpoints";
    const first = await postJson(`${server.url}/v1/chat/completions`, { messages: [{ role: "user", content: prompt }] });
    const second = await postJson(`${server.url}/v1/messages`, { messages: [{ role: "user", content: prompt }] });
    expect(first.status).toBe(500);
    expect(second.status).toBe(200);
    expect(await second.json()).toMatchObject({ content: [{ text: "shared across endpoints" }] });
  });

  it("health, models and unknown routes", async () => {
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });

    const models = await fetch(`${server.url}/v1/models`);
    const list = (await models.json()) as { data: { id: string }[] };
    expect(list.data.map((model) => model.id)).toContain("fake");

    expect((await fetch(`${server.url}/_gates/not%20a%20name`, { method: "POST" })).status).toBe(400);
    const missing = await fetch(`${server.url}/v1/nope`, { method: "POST" });
    expect(missing.status).toBe(404);
  });

  it("close() ends hanging streams instead of waiting for them", async () => {
    const own = await startFakeModel({ port: 0 });
    const response = await postJson(`${own.url}/v1/chat/completions`, {
      stream: true,
      messages: [{ role: "user", content: "/hang" }],
    });
    expect(response.status).toBe(200);
    expect(own.stats().inFlight).toBe(1);

    const started = performance.now();
    await own.close();
    expect(performance.now() - started).toBeLessThan(HANG_MAX_MS);
    await expect(response.text()).rejects.toThrow();
  });
});
