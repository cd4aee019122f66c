// The compaction summary call against the fake model over HTTP: its output cap reaches the
// provider, its own retry budget (reported before each backoff), final failures at once, abort.
import { describe, expect, it } from "vitest";
import { summarize } from "../../src/llm/compaction/summarize";
import { isModelCallError } from "../../src/llm/model-call-error";
import { languageModelFor } from "../../src/llm/provider";
import { fakeProvider, modelConfigRow } from "./support/model-rows";
import { RETRY_INITIAL_DELAY_MS } from "../../src/llm/retry";

const nonce = () => crypto.randomUUID().slice(0, 8);

function model() {
  const provider = fakeProvider();
  return languageModelFor(provider, modelConfigRow(provider));
}

function run(text: string, opts: { maxOutputTokens?: number; maxRetries?: number; signal?: AbortSignal } = {}) {
  const retries: number[] = [];
  const sleeps: number[] = [];
  const outcome = summarize({
    model: model(),
    prompt: { system: "summarize", messages: [{ role: "user", content: [{ type: "text", text }] }] },
    maxOutputTokens: opts.maxOutputTokens ?? 100,
    abortSignal: opts.signal ?? new AbortController().signal,
    maxRetries: opts.maxRetries ?? 2,
    retryInitialMs: RETRY_INITIAL_DELAY_MS,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    onRetry: (_err, attempt) => {
      retries.push(attempt);
    },
  });
  return { outcome, retries, sleeps };
}

describe("the summary call", () => {
  it("sends the output cap: the summary stops there", async () => {
    const { outcome } = run(`one two three four five ${nonce()}`, { maxOutputTokens: 3 });
    expect(await outcome).toMatchObject({ kind: "summary", text: "one two three" });
  });

  it("retries retryable failures within its own budget, reporting each before the backoff", async () => {
    const tag = `fine-${nonce()}`;
    const { outcome, retries, sleeps } = run(`/error 503 2 ${tag}`);
    expect(await outcome).toMatchObject({ kind: "summary", text: tag });
    expect(retries).toEqual([1, 2]);
    expect(sleeps).toEqual([1000, 2000]);
  });

  it("throws the last failure once the budget is spent, and a final failure at once", async () => {
    const spent = run(`/error 503 always-${nonce()}`, { maxRetries: 1 });
    const error = await spent.outcome.catch((err: unknown) => err);
    expect(isModelCallError(error) && error.retryable).toBe(true);
    expect(spent.retries).toEqual([1]);

    const final = run(`/error 400 ${nonce()}`);
    const refused = await final.outcome.catch((err: unknown) => err);
    expect(isModelCallError(refused) && refused.statusCode).toBe(400);
    expect(final.retries).toEqual([]);
  });

  it("is aborted, not failed, when the runner's signal fires", async () => {
    const controller = new AbortController();
    const { outcome } = run(`/hang ${nonce()}`, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("stop")), 200);
    expect(await outcome).toEqual({ kind: "aborted" });
  });
});
