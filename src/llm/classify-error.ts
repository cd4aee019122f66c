/**
 * Turns whatever a model call failed with into a ModelCallError, from structured fields only: the
 * HTTP status of an APICallError, the `type`/`code` of a provider's in-stream error object, the
 * `code` of a network error, the class of a fetch failure. Never from message text.
 *
 * Retryable, as the spec lists: 408, 429, 5xx (529 included) and network failures. Every other
 * status is final, including 409, which the AI SDK itself would retry.
 */
import { APICallError, RetryError, StreamProviderError } from "ai";
import { type ModelErrorKind, ModelCallError } from "./model-call-error";

/** Error `code`s of a dropped or refused connection (the AI SDK's own list, for errors it does not wrap). */
const NETWORK_ERROR_CODES = new Set([
  "ConnectionRefused",
  "ConnectionClosed",
  "FailedToOpenSocket",
  "ECONNRESET",
  "ECONNREFUSED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * Provider error `type`/`code` values that stand for an HTTP status. They arrive inside a 200
 * stream (Anthropic `event: error`, OpenAI error chunks) or in an APICallError's parsed body.
 */
const ERROR_TYPE_STATUS: Record<string, number> = {
  // Anthropic
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
  // OpenAI
  context_length_exceeded: 400,
  insufficient_quota: 429,
  rate_limit_exceeded: 429,
  server_error: 500,
};

/** Codes that say the prompt does not fit the model, whatever the status. */
const CONTEXT_OVERFLOW_CODES = new Set(["context_length_exceeded", "request_too_large"]);
/** Codes that will not clear up by waiting, although their status (429) is a retryable one. */
const FINAL_CODES = new Set(["insufficient_quota"]);

interface Facts {
  statusCode: number | undefined;
  codes: string[];
}

export function classifyModelError(error: unknown, provider: string): ModelCallError {
  if (error instanceof ModelCallError) return error;
  if (RetryError.isInstance(error)) return classifyModelError(error.lastError, provider);

  if (APICallError.isInstance(error)) {
    // A success status whose body broke while it was read (the connection reset mid-stream): a
    // network failure like any other, not the provider refusing the request.
    if (error.statusCode !== undefined && error.statusCode < 300 && isNetworkFailure(error.cause)) {
      return build("network", true, provider, error.message, undefined, error);
    }
    const facts: Facts = { statusCode: error.statusCode, codes: errorCodes(error.data) };
    if (facts.statusCode === undefined && facts.codes.length === 0) {
      // No response: the SDK wraps connection failures this way and flags them retryable.
      return build(error.isRetryable ? "network" : "unknown", error.isRetryable, provider, error.message, undefined, error);
    }
    return fromFacts(facts, provider, error.message, error);
  }

  if (StreamProviderError.isInstance(error)) {
    // AI SDK 7 wraps a provider's in-stream error object in a StreamProviderError. Read the
    // provider's own payload first (what SDK 6 handed over as is), then the status and codes the
    // provider package derived for it; with neither, the checks below decide, as for any error.
    const facts = streamErrorFacts(error.data) ?? streamErrorFacts({ statusCode: error.statusCode, code: error.code, type: error.type });
    if (facts) return fromFacts(facts, provider, error.message, error);
  }

  const streamed = streamErrorFacts(error);
  if (streamed) return fromFacts(streamed, provider, messageOf(error), error);

  if (hasName(error, "TimeoutError")) return build("timeout", true, provider, messageOf(error), undefined, error);
  if (isNetworkFailure(error)) return build("network", true, provider, messageOf(error), undefined, error);
  return build("unknown", false, provider, messageOf(error), undefined, error);
}

function fromFacts(facts: Facts, provider: string, message: string, cause: unknown): ModelCallError {
  const statusCode = facts.statusCode ?? statusFromCodes(facts.codes);
  if (facts.codes.some((code) => CONTEXT_OVERFLOW_CODES.has(code))) {
    return build("context_overflow", false, provider, message, statusCode, cause);
  }
  if (statusCode === undefined) return build("unknown", false, provider, message, undefined, cause);
  const kind = kindOfStatus(statusCode);
  const retryable = isRetryableStatus(statusCode) && !facts.codes.some((code) => FINAL_CODES.has(code));
  return build(kind, retryable, provider, message, statusCode, cause);
}

export function isRetryableStatus(statusCode: number): boolean {
  return statusCode === 408 || statusCode === 429 || (statusCode >= 500 && statusCode <= 599);
}

function kindOfStatus(statusCode: number): ModelErrorKind {
  if (statusCode === 408) return "timeout";
  if (statusCode === 429) return "rate_limit";
  if (statusCode === 529) return "overloaded";
  if (statusCode >= 500 && statusCode <= 599) return "server";
  if (statusCode === 401 || statusCode === 403) return "auth";
  if (statusCode === 413) return "context_overflow";
  if (statusCode >= 400 && statusCode <= 499) return "bad_request";
  return "unknown";
}

function statusFromCodes(codes: readonly string[]): number | undefined {
  for (const code of codes) {
    const status = ERROR_TYPE_STATUS[code];
    if (status !== undefined) return status;
  }
  return undefined;
}

function build(
  kind: ModelErrorKind,
  retryable: boolean,
  provider: string,
  message: string,
  statusCode: number | undefined,
  cause: unknown,
): ModelCallError {
  return new ModelCallError({ kind, retryable, provider, message, statusCode, cause });
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** `code` then `type` of a provider error body: OpenAI `{error: {code, type}}`, Anthropic `{type: "error", error: {type}}`. */
function errorCodes(data: unknown): string[] {
  const outer = record(data);
  const inner = record(outer?.["error"]) ?? record(record(outer?.["response"])?.["error"]) ?? outer;
  if (!inner) return [];
  return [inner["code"], inner["type"]].filter((v): v is string => typeof v === "string" && v !== "error");
}

/**
 * An error object a provider put in the stream after the response started: OpenAI's SDK gives
 * `{statusCode, code, type, ...}`, raw OpenAI chunks `{code, type, message}`, Anthropic `{type, message}`.
 */
function streamErrorFacts(error: unknown): Facts | undefined {
  if (error instanceof Error) return undefined;
  const value = record(error);
  if (!value) return undefined;
  const statusCode = typeof value["statusCode"] === "number" ? value["statusCode"] : undefined;
  const codes = errorCodes(value);
  if (statusCode === undefined && statusFromCodes(codes) === undefined) return undefined;
  return { statusCode, codes };
}

function hasName(error: unknown, name: string): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === name;
}

/** A fetch failure is a TypeError (Fetch standard); a reset connection carries a `code` somewhere in its cause chain. */
function isNetworkFailure(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    if (current instanceof TypeError) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && NETWORK_ERROR_CODES.has(code)) return true;
    current = current.cause;
  }
  return false;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  const value = record(error);
  if (value && typeof value["message"] === "string") return value["message"];
  const inner = record(value?.["error"]);
  if (inner && typeof inner["message"] === "string") return inner["message"];
  return typeof error === "string" ? error : "model call failed";
}
