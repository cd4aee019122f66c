// backgroundModelCall (titles, summaries) against the fake model over HTTP: one non-streaming
// request per attempt, its own retry budget, final failures at once.
import { describe, expect, it } from "vitest";
import type { ProviderType } from "../../src/model-configs/providers";
import { backgroundModelCall } from "../../src/llm/background-call";
import { isModelCallError } from "../../src/llm/model-call-error";
import { languageModelFor } from "../../src/llm/provider";
import { fakeProvider, modelConfigRow } from "./support/model-rows";
import { RETRY_INITIAL_DELAY_MS } from "../../src/llm/retry";

const nonce = () => crypto.randomUUID().slice(0, 8);

function model(type: ProviderType) {
  const provider = fakeProvider({ type });
  return languageModelFor(provider, modelConfigRow(provider));
}

/** Records the waits instead of sleeping them. */
function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

describe.each<ProviderType>(["openai-compatible", "anthropic", "openai"])("backgroundModelCall (%s)", (type) => {
  it("answers with the model's text in one attempt", async () => {
    const { waits, sleep } = recordingSleep();
    const text = `a title ${nonce()}`;
    const result = await backgroundModelCall({
      model: model(type),
      system: "write a title",
      messages: [{ role: "user", content: text }],
      maxRetries: 2,
      retryInitialMs: RETRY_INITIAL_DELAY_MS,
      abortSignal: new AbortController().signal,
      sleep,
    });
    expect(result.text).toBe(text);
    expect(result.attempts).toBe(1);
    expect(waits).toEqual([]);
  });

  it("retries retryable failures with the turn's backoff, then answers", async () => {
    const { waits, sleep } = recordingSleep();
    const result = await backgroundModelCall({
      model: model(type),
      messages: [{ role: "user", content: `/error 503 2 recovered ${nonce()}` }],
      maxRetries: 2,
      retryInitialMs: RETRY_INITIAL_DELAY_MS,
      abortSignal: new AbortController().signal,
      sleep,
    });
    expect(result.text).toMatch(/^recovered /);
    expect(result.attempts).toBe(3);
    expect(waits).toEqual([1_000, 2_000]);
  });

  it("gives up once its own budget is spent", async () => {
    const { waits, sleep } = recordingSleep();
    const failure = await backgroundModelCall({
      model: model(type),
      messages: [{ role: "user", content: `/error 503 always-${nonce()}` }],
      maxRetries: 1,
      retryInitialMs: RETRY_INITIAL_DELAY_MS,
      abortSignal: new AbortController().signal,
      sleep,
    }).catch((err: unknown) => err);
    expect(isModelCallError(failure) && failure.retryable && failure.statusCode === 503).toBe(true);
    expect(waits).toEqual([1_000]);
  });

  it("fails at once on a final error", async () => {
    const { waits, sleep } = recordingSleep();
    const failure = await backgroundModelCall({
      model: model(type),
      messages: [{ role: "user", content: `/error 400 bad-${nonce()}` }],
      maxRetries: 5,
      retryInitialMs: RETRY_INITIAL_DELAY_MS,
      abortSignal: new AbortController().signal,
      sleep,
    }).catch((err: unknown) => err);
    expect(isModelCallError(failure) && !failure.retryable && failure.statusCode === 400).toBe(true);
    expect(waits).toEqual([]);
  });

  it("is refused by a non-streaming error directive while a streaming call would echo", async () => {
    const { sleep } = recordingSleep();
    const failure = await backgroundModelCall({
      model: model(type),
      messages: [{ role: "user", content: `/nonstream-error 400 hello ${nonce()}` }],
      maxRetries: 0,
      retryInitialMs: RETRY_INITIAL_DELAY_MS,
      abortSignal: new AbortController().signal,
      sleep,
    }).catch((err: unknown) => err);
    expect(isModelCallError(failure) && failure.statusCode === 400).toBe(true);
  });
});
