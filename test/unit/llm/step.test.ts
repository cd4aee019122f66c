// runModelStep over a scripted model: the stream shapes the fake server cannot produce (reasoning,
// several text blocks, a provider error event after output). Over HTTP, with the fake model's
// directives (a stream cut short, a connection reset): test/node/llm-step.test.ts.
import { APICallError, simulateReadableStream } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { isModelCallError, type ModelCallError } from "../../../src/llm/model-call-error";
import { runModelStep } from "../../../src/llm/step";
import type { BufferedPart } from "../../../src/part-buffer/episode";
import { episodeKey, PartBuffer } from "../../../src/part-buffer/part-buffer";
import { EpisodeRelays } from "../../../src/stream/episode-relays";
import type { StreamPart } from "../../../src/wire/stream-part";
import { modelTools } from "../../../src/llm/tools";

type Chunks = Parameters<typeof simulateReadableStream>[0]["chunks"];

const usage = {
  inputTokens: { total: 7, noCache: 5, cacheRead: 2, cacheWrite: 0 },
  outputTokens: { total: 11, text: 8, reasoning: 3 },
};
const stop = { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage } as const;

function scripted(chunks: Chunks, provider = "anthropic.messages"): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    provider,
    doStream: async () => ({ stream: simulateReadableStream({ chunks }) as ReadableStream<never> }),
  });
}

const prompt = { messages: [{ role: "user" as const, content: "hi" }] };

async function step(
  model: MockLanguageModelV3,
  extra: { onPart?: (part: StreamPart) => void; tools?: ReturnType<typeof modelTools> } = {},
) {
  const parts: StreamPart[] = [];
  const outcome = await runModelStep({
    model,
    prompt,
    tools: extra.tools,
    abortSignal: new AbortController().signal,
    onPart: extra.onPart ?? ((part) => parts.push(part)),
  });
  return { outcome, parts };
}

async function failure(promise: Promise<unknown>): Promise<ModelCallError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isModelCallError(error)).toBe(true);
  return error as ModelCallError;
}

describe("runModelStep (scripted model)", () => {
  it("keeps reasoning and each text block as its own part, in stream order, and reports usage", async () => {
    const model = scripted([
      { type: "stream-start", warnings: [] },
      { type: "reasoning-start", id: "r" },
      { type: "reasoning-delta", id: "r", delta: "think " },
      { type: "reasoning-delta", id: "r", delta: "hard" },
      { type: "reasoning-end", id: "r" },
      { type: "text-start", id: "t1" },
      { type: "text-delta", id: "t1", delta: "Hello" },
      { type: "text-end", id: "t1" },
      { type: "text-start", id: "t2" },
      { type: "text-delta", id: "t2", delta: "" },
      { type: "text-delta", id: "t2", delta: "again" },
      { type: "text-end", id: "t2" },
      stop,
    ]);
    const { outcome, parts } = await step(model);
    expect(outcome).toMatchObject({
      kind: "response",
      assistant: [
        { type: "reasoning", text: "think hard" },
        { type: "text", text: "Hello" },
        { type: "text", text: "again" },
      ],
      finishReason: "stop",
      usage: { inputTokens: 7, outputTokens: 11, totalTokens: 18, reasoningTokens: 3, cachedInputTokens: 2 },
    });
    expect(parts).toEqual([
      { type: "reasoning", text: "think " },
      { type: "reasoning", text: "hard" },
      { type: "text", text: "Hello" },
      { type: "text", text: "again" },
    ]);
  });

  it("passes the call settings through, with no retries", async () => {
    const model = scripted([stop]);
    await runModelStep({
      model,
      prompt: { system: "sys", messages: prompt.messages },
      abortSignal: new AbortController().signal,
      maxOutputTokens: 321,
      providerOptions: { anthropic: { effort: "low" } },
      onPart: () => {},
    });
    expect(model.doStreamCalls).toHaveLength(1);
    expect(model.doStreamCalls[0]).toMatchObject({ maxOutputTokens: 321, providerOptions: { anthropic: { effort: "low" } } });
    expect(model.doStreamCalls[0]?.prompt[0]).toEqual({ role: "system", content: "sys" });
  });

  it("classifies an error that arrives after output started", async () => {
    const model = scripted([
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "partial" },
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      stop,
    ]);
    const error = await failure(step(model));
    expect(error).toMatchObject({ kind: "overloaded", retryable: true, statusCode: 529, provider: "anthropic", message: "Overloaded" });
  });

  it("classifies a request that failed before streaming", async () => {
    const model = new MockLanguageModelV3({
      provider: "openai.responses",
      doStream: async () => {
        throw new APICallError({ message: "Service Unavailable", url: "u", requestBodyValues: {}, statusCode: 503 });
      },
    });
    expect(await failure(step(model))).toMatchObject({ kind: "server", retryable: true, statusCode: 503, provider: "openai" });
  });

  it("ignores an onPart that throws", async () => {
    const model = scripted([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "still here" }, stop]);
    const { outcome } = await step(model, {
      onPart: () => {
        throw new Error("buffer full");
      },
    });
    expect(outcome).toMatchObject({ kind: "response", assistant: [{ type: "text", text: "still here" }] });
  });

  it("answers a call with unparsable arguments with an error result and records it with empty arguments", async () => {
    const tools = modelTools({ unsafeDynamicTools: [{ name: "pick", input_schema: { type: "object", properties: {} } }] });
    const model = scripted(
      [
        { type: "tool-call", toolCallId: "ok", toolName: "pick", input: "{}" },
        { type: "tool-call", toolCallId: "bad", toolName: "pick", input: "{not json" },
        { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_use" }, usage },
      ],
      "openai.chat",
    );
    const { outcome } = await step(model, { tools });
    expect(outcome).toMatchObject({
      kind: "response",
      finishReason: "tool-calls",
      assistant: [
        { type: "tool-call", tool_call_id: "ok", tool_name: "pick", args: {} },
        { type: "tool-call", tool_call_id: "bad", tool_name: "pick", args: {} },
      ],
      toolCalls: [{ tool_call_id: "ok", tool_name: "pick", args: {}, dynamic: true }],
      toolErrors: [{ type: "tool-result", tool_call_id: "bad", tool_name: "pick", is_error: true, result: { error: expect.any(String) } }],
    });
  });

  it("streams a call as Coder's tool-call fragments (args_delta, no args, empty ones left out), then the complete call", async () => {
    const tools = modelTools({ unsafeDynamicTools: [{ name: "pick", input_schema: { type: "object", properties: {} } }] });
    const model = scripted(
      [
        { type: "tool-input-start", id: "c1", toolName: "pick" },
        { type: "tool-input-delta", id: "c1", delta: "" },
        { type: "tool-input-delta", id: "c1", delta: '{"n":' },
        { type: "tool-input-delta", id: "c1", delta: "1}" },
        { type: "tool-input-end", id: "c1" },
        { type: "tool-call", toolCallId: "c1", toolName: "pick", input: '{"n":1}' },
        { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_use" }, usage },
      ],
      "openai.chat",
    );
    const { parts } = await step(model, { tools });
    expect(parts).toEqual([
      { type: "tool-call", tool_call_id: "c1", tool_name: "pick", args_delta: '{"n":' },
      { type: "tool-call", tool_call_id: "c1", tool_name: "pick", args_delta: "1}" },
      { type: "tool-call", tool_call_id: "c1", tool_name: "pick", args: { n: 1 } },
    ]);
    // A fragment never carries `args`, so Coder's clients append it rather than replace the call.
    expect(parts.slice(0, 2).every((p) => !("args" in p))).toBe(true);
  });

  describe("a fast stream (every chunk ready at once, as when the provider's bytes are buffered)", () => {
    const TEXT_PARTS = 200;
    const chunks: Chunks = [
      { type: "text-start", id: "t" },
      ...Array.from({ length: TEXT_PARTS }, (_, i) => ({ type: "text-delta" as const, id: "t", delta: `${i} ` })),
      { type: "text-end", id: "t" },
      stop,
    ];
    /**
     * A model whose stream hands out a chunk on every pull, at once, and counts the pulls: how far
     * the SDK has read the provider's stream. Read straight through, the SDK would drain it all on
     * microtasks, in one task of the event loop.
     */
    const fast = () => {
      let pulled = 0;
      const model = new MockLanguageModelV3({
        doStream: async () => ({
          stream: new ReadableStream<Chunks[number]>({
            pull(controller) {
              const chunk = chunks[pulled++];
              if (chunk === undefined) controller.close();
              else controller.enqueue(chunk);
            },
          }) as ReadableStream<never>,
        }),
      });
      return { model, pulled: () => pulled };
    };

    it("pauses the model's stream every deltasPerPause deltas", async () => {
      const { model, pulled } = fast();
      const pulledAtPause: number[] = [];
      const parts: StreamPart[] = [];
      const outcome = await runModelStep({
        model,
        prompt,
        abortSignal: new AbortController().signal,
        onPart: (part) => parts.push(part),
        pacing: {
          deltasPerPause: 10,
          yieldToEventLoop: async () => {
            pulledAtPause.push(pulled());
          },
        },
      });
      expect(outcome).toMatchObject({ kind: "response", finishReason: "stop" });
      expect(parts.filter((p) => p.type === "text")).toHaveLength(TEXT_PARTS);
      // After 1, 2, 4 and 8 deltas (the first parts go out early), then every 10. The chunks
      // pulled are the deltas plus text-start; the pipes in between may hold one or two more.
      const afterDeltas = [1, 3, 7, 15];
      for (let n = 25; n <= TEXT_PARTS; n += 10) afterDeltas.push(n);
      expect(pulledAtPause).toHaveLength(afterDeltas.length);
      pulledAtPause.forEach((pulled, i) => {
        expect(pulled).toBeGreaterThanOrEqual(afterDeltas[i]! + 1);
        expect(pulled).toBeLessThanOrEqual(afterDeltas[i]! + 4);
      });
    });

    it("lets the relay send the first parts before the SDK has read the whole stream", async () => {
      const CHAT = "0b6c1f7e-4a39-4f2e-9a52-1c1f3c1e2d10";
      const key = episodeKey(CHAT, 1, 1);
      const buffer = new PartBuffer<StreamPart>({ now: () => 0 });
      buffer.createEpisode(key);
      // The object's relay, with its default coalescing: it takes the first burst one macrotask after a part arrives.
      const relays = new EpisodeRelays(buffer, () => CHAT);
      const { model, pulled } = fast();
      const pulledAtBurst: number[] = [];
      let added = 0;
      let relayed = 0;
      let stepDone = false;
      let allRelayed = () => {};
      const relayedAll = new Promise<void>((resolve) => {
        allRelayed = resolve;
      });
      relays.follow(1, 1, (burst: readonly BufferedPart<StreamPart>[]) => {
        if (burst.length > 0) pulledAtBurst.push(pulled());
        relayed += burst.length;
        if (stepDone && relayed === added) allRelayed();
      });
      const outcome = await runModelStep({
        model,
        prompt,
        abortSignal: new AbortController().signal,
        onPart: (part) => {
          added++;
          buffer.addPart(key, part);
        },
      });
      stepDone = true;
      expect(outcome).toMatchObject({ kind: "response" });
      // The relay may still be gathering a burst when the step ends (a busy stream's burst waits
      // up to GATHER_MS): judge the bursts once every part has gone out.
      if (relayed < added) await relayedAll;
      buffer.closeEpisode(key);
      // Unpaced, the SDK drains the provider's stream before any timer runs: the first burst would
      // come once every chunk had been read and parsed.
      expect(pulledAtBurst.length).toBeGreaterThan(1);
      // The relay sets its timer once the first part has come through the SDK's stages, behind the
      // timers of the first pauses (after 1, 2 and 4 deltas), and sends that first burst after one
      // turn. (The later ones it gathers while the stream stays busy: episode-relays.test.ts.)
      expect(pulledAtBurst[0]).toBeLessThanOrEqual(12);
    });
  });
});
