import { APICallError, RetryError, StreamProviderError } from "ai";
import { describe, expect, it } from "vitest";
import { classifyModelError } from "../../../src/llm/classify-error";
import { ModelCallError } from "../../../src/llm/model-call-error";

function apiError(statusCode: number | undefined, extra: { isRetryable?: boolean; data?: unknown; message?: string } = {}): APICallError {
  return new APICallError({
    message: extra.message ?? `status ${statusCode}`,
    url: "https://api.example.test/v1/chat/completions",
    requestBodyValues: {},
    statusCode,
    ...(extra.isRetryable !== undefined ? { isRetryable: extra.isRetryable } : {}),
    data: extra.data,
  });
}

describe("classifyModelError: HTTP statuses", () => {
  it.each([
    [408, "timeout", true],
    [429, "rate_limit", true],
    [500, "server", true],
    [502, "server", true],
    [503, "server", true],
    [504, "server", true],
    [529, "overloaded", true],
    [400, "bad_request", false],
    [401, "auth", false],
    [403, "auth", false],
    [404, "bad_request", false],
    [409, "bad_request", false],
    [413, "context_overflow", false],
    [422, "bad_request", false],
  ] as const)("%i is %s, retryable %s", (status, kind, retryable) => {
    const error = classifyModelError(apiError(status), "openai");
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ kind, retryable, statusCode: status, provider: "openai", message: `status ${status}` });
  });

  it("follows the status, not the SDK's own isRetryable", () => {
    // The SDK retries 409; the spec does not. Anthropic's SDK marks an in-stream api_error (500) final; the spec retries 5xx.
    expect(classifyModelError(apiError(409, { isRetryable: true }), "openai").retryable).toBe(false);
    expect(classifyModelError(apiError(500, { isRetryable: false }), "anthropic").retryable).toBe(true);
  });

  it("reads context overflow from the error code, whatever the status", () => {
    const data = { error: { message: "too long", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } };
    expect(classifyModelError(apiError(400, { data }), "openai")).toMatchObject({
      kind: "context_overflow",
      retryable: false,
      statusCode: 400,
    });
  });

  it("does not retry an exhausted quota although it is a 429", () => {
    const data = { error: { message: "quota", type: "insufficient_quota", param: null, code: "insufficient_quota" } };
    expect(classifyModelError(apiError(429, { data }), "openai")).toMatchObject({ kind: "rate_limit", retryable: false, statusCode: 429 });
  });

  it("ignores the message text", () => {
    const error = classifyModelError(
      apiError(400, { message: "prompt is too long: 300000 tokens > 200000 maximum; overloaded; retry" }),
      "anthropic",
    );
    expect(error).toMatchObject({ kind: "bad_request", retryable: false });
  });
});

describe("classifyModelError: failures without a status", () => {
  it("takes a connection failure the SDK wrapped (no status, retryable) as network", () => {
    const wrapped = new APICallError({
      message: "Cannot connect to API: ECONNREFUSED",
      url: "u",
      requestBodyValues: {},
      isRetryable: true,
    });
    expect(classifyModelError(wrapped, "openai")).toMatchObject({ kind: "network", retryable: true, statusCode: undefined });
  });

  it("takes a fetch TypeError and a reset connection anywhere in the cause chain as network", () => {
    expect(classifyModelError(new TypeError("fetch failed"), "openai")).toMatchObject({ kind: "network", retryable: true });
    const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    expect(classifyModelError(new Error("terminated", { cause: reset }), "openai")).toMatchObject({ kind: "network", retryable: true });
  });

  it("takes a 200 whose body broke on a reset connection as network, and a 200 with bad data as final", () => {
    const reset = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
    const broken = new APICallError({
      message: "Failed to process successful response",
      url: "u",
      requestBodyValues: {},
      statusCode: 200,
      cause: new TypeError("terminated", { cause: reset }),
    });
    expect(classifyModelError(broken, "anthropic")).toMatchObject({ kind: "network", retryable: true, statusCode: undefined });
    const garbled = new APICallError({
      message: "Failed to process successful response",
      url: "u",
      requestBodyValues: {},
      statusCode: 200,
    });
    expect(classifyModelError(garbled, "anthropic")).toMatchObject({ kind: "unknown", retryable: false });
  });

  it("takes a TimeoutError as a retryable timeout", () => {
    expect(classifyModelError(new DOMException("timed out", "TimeoutError"), "anthropic")).toMatchObject({
      kind: "timeout",
      retryable: true,
    });
  });

  it("unwraps a RetryError to its last error", () => {
    const retry = new RetryError({
      message: "failed after 3 attempts",
      reason: "maxRetriesExceeded",
      errors: [apiError(500), apiError(503)],
    });
    expect(classifyModelError(retry, "openai")).toMatchObject({ kind: "server", statusCode: 503 });
  });

  it("leaves anything else unknown and final", () => {
    expect(classifyModelError(new Error("schema mismatch"), "openai")).toMatchObject({
      kind: "unknown",
      retryable: false,
      message: "schema mismatch",
    });
    expect(classifyModelError("odd", "openai")).toMatchObject({ kind: "unknown", retryable: false, message: "odd" });
  });

  it("passes a ModelCallError through", () => {
    const original = new ModelCallError({ kind: "auth", retryable: false, provider: "openai", message: "no key" });
    expect(classifyModelError(original, "anthropic")).toBe(original);
  });
});

describe("classifyModelError: errors inside a started stream", () => {
  it.each([
    [{ type: "overloaded_error", message: "Overloaded" }, "overloaded", true, 529],
    [{ type: "api_error", message: "Internal" }, "server", true, 500],
    [{ type: "rate_limit_error", message: "slow down" }, "rate_limit", true, 429],
    [{ type: "invalid_request_error", message: "bad" }, "bad_request", false, 400],
    [{ type: "authentication_error", message: "key" }, "auth", false, 401],
  ] as const)("Anthropic %o", (streamed, kind, retryable, statusCode) => {
    expect(classifyModelError(streamed, "anthropic")).toMatchObject({ kind, retryable, statusCode, message: streamed.message });
  });

  it("uses the status the OpenAI SDK derived for a stream error", () => {
    const streamed = {
      message: "The server had an error",
      type: "server_error",
      code: undefined,
      statusCode: 500,
      isRetryable: true,
      data: {},
    };
    expect(classifyModelError(streamed, "openai")).toMatchObject({ kind: "server", retryable: true, statusCode: 500 });
  });

  it("reads a raw OpenAI-style error chunk by its code", () => {
    expect(
      classifyModelError({ message: "too long", type: "invalid_request_error", code: "context_length_exceeded" }, "openai-compatible"),
    ).toMatchObject({
      kind: "context_overflow",
      retryable: false,
    });
    expect(classifyModelError({ message: "busy", type: "server_error", code: null }, "openai-compatible")).toMatchObject({
      kind: "server",
      retryable: true,
      statusCode: 500,
    });
  });

  it("reads the provider payload of an AI SDK 7 StreamProviderError", () => {
    const overloaded = new StreamProviderError({
      message: "Overloaded",
      type: "overloaded_error",
      statusCode: 529,
      data: { type: "overloaded_error", message: "Overloaded" },
    });
    expect(classifyModelError(overloaded, "anthropic")).toMatchObject({ kind: "overloaded", retryable: true, statusCode: 529 });
    const quota = new StreamProviderError({
      message: "quota",
      type: "insufficient_quota",
      code: "insufficient_quota",
      statusCode: 429,
      data: { error: { message: "quota", type: "insufficient_quota", code: "insufficient_quota" } },
    });
    expect(classifyModelError(quota, "openai")).toMatchObject({ kind: "rate_limit", retryable: false, statusCode: 429 });
    const derived = new StreamProviderError({
      message: "odd",
      type: "mystery",
      statusCode: 500,
      data: { type: "mystery", message: "odd" },
    });
    expect(classifyModelError(derived, "openai")).toMatchObject({ kind: "server", retryable: true, statusCode: 500 });
    expect(classifyModelError(new StreamProviderError({ message: "weird", type: "mystery" }), "openai")).toMatchObject({
      kind: "unknown",
      retryable: false,
    });
  });

  it("leaves an object it cannot read unknown", () => {
    expect(classifyModelError({ message: "weird", type: "mystery" }, "openai")).toMatchObject({
      kind: "unknown",
      retryable: false,
      message: "weird",
    });
  });
});
