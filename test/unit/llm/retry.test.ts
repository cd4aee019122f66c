import { describe, expect, it } from "vitest";
import { ModelCallError } from "../../../src/llm/model-call-error";
import { RETRY_MAX_DELAY_MS, retryDelayMs, retryPayload, shouldFinishError } from "../../../src/llm/retry";

describe("retryDelayMs", () => {
  it("starts at 1 s and doubles up to the 60 s cap", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 25, 1000].map((attempt) => retryDelayMs(attempt))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000, 60_000,
    ]);
  });

  it("treats attempts below 1 as the first", () => {
    expect(retryDelayMs(0)).toBe(1_000);
    expect(retryDelayMs(-3)).toBe(1_000);
  });

  it("starts from CHAT_RETRY_INITIAL_DELAY_MS when given, with the same doubling and cap", () => {
    expect([1, 2, 3, 10, 17, 40].map((attempt) => retryDelayMs(attempt, 400))).toEqual([400, 800, 1_600, 60_000, 60_000, 60_000]);
    expect(retryDelayMs(8, 10)).toBe(1_280);
  });

  it("never exceeds the cap for huge attempt numbers", () => {
    expect(retryDelayMs(Number.MAX_SAFE_INTEGER)).toBe(RETRY_MAX_DELAY_MS);
  });
});

describe("retryPayload", () => {
  it("is the docs/api.md retry event: attempt, delay, error, kind, provider, status and when the retry starts", () => {
    const error = new ModelCallError({
      kind: "overloaded",
      retryable: true,
      provider: "anthropic",
      message: "Overloaded",
      statusCode: 529,
    });
    expect(retryPayload(error, 3, 4_000, new Date("2026-01-01T00:00:00.000Z"))).toEqual({
      attempt: 3,
      delay_ms: 4_000,
      error: "Overloaded",
      kind: "overloaded",
      reason: "overloaded",
      provider: "anthropic",
      status_code: 529,
      retrying_at: "2026-01-01T00:00:04.000Z",
    });
  });

  it("sends a null status code for failures without a response", () => {
    const error = new ModelCallError({ kind: "network", retryable: true, provider: "openai", message: "Cannot connect to API" });
    expect(retryPayload(error, 1, 1_000, new Date(0)).status_code).toBeNull();
  });
});

describe("shouldFinishError", () => {
  it("allows limit + 1 attempts: 26 with the default of 25", () => {
    const failedAttempts = Array.from({ length: 30 }, (_, i) => i + 1);
    const retried = failedAttempts.filter((attempt) => !shouldFinishError(attempt, 25));
    // Failures of attempts 1..25 are retried, so attempt 26 is made; its failure applies FinishError.
    expect(retried).toEqual(failedAttempts.slice(0, 25));
    expect(shouldFinishError(26, 25)).toBe(true);
  });

  it("finishes at the first failure with a limit of 0", () => {
    expect(shouldFinishError(1, 0)).toBe(true);
  });
});
