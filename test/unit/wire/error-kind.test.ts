/** Our failure reasons on the wire as Coder's `ChatErrorKind` values, the reason kept beside them. */
import { describe, expect, it } from "vitest";
import { MODEL_ERROR_KINDS } from "../../../src/llm/model-call-error";
import { retryPayload } from "../../../src/llm/retry";
import { ModelCallError } from "../../../src/llm/model-call-error";
import { errorPayloadOf } from "../../../src/wire/chat-error";
import { CODER_ERROR_KINDS, coderErrorKind } from "../../../src/wire/error-kind";

describe("coderErrorKind", () => {
  it("maps every model failure kind onto Coder's list", () => {
    const mapped = Object.fromEntries(MODEL_ERROR_KINDS.map((k) => [k, coderErrorKind(k)]));
    expect(mapped).toEqual({
      rate_limit: "rate_limit",
      overloaded: "overloaded",
      server: "generic",
      timeout: "timeout",
      network: "generic",
      auth: "auth",
      bad_request: "generic",
      context_overflow: "generic",
      unknown: "generic",
    });
    for (const kind of Object.values(mapped)) expect(CODER_ERROR_KINDS).toContain(kind);
  });

  it("maps the hook failures and anything unknown", () => {
    expect(coderErrorKind("hook_unavailable")).toBe("hook_dispatch_failed");
    expect(coderErrorKind("hook_invalid_response")).toBe("hook_dispatch_failed");
    expect(coderErrorKind("generation_failed")).toBe("generic");
    expect(coderErrorKind("context_still_over_limit")).toBe("generic");
    expect(coderErrorKind("content_filter")).toBe("content_filter");
  });

  it("puts Coder's kind in `kind` and ours in `reason` of the error and retry payloads", () => {
    expect(errorPayloadOf("boom", { kind: "network", provider: "openai", retryable: true, status_code: null, detail: null })).toMatchObject(
      {
        kind: "generic",
        reason: "network",
      },
    );
    expect(errorPayloadOf("no model")).toMatchObject({ kind: "generic", reason: "generation_failed" });
    const failure = new ModelCallError({ kind: "rate_limit", retryable: true, provider: "openai", message: "slow down", statusCode: 429 });
    expect(retryPayload(failure, 1, 1000, new Date(0))).toMatchObject({ kind: "rate_limit", reason: "rate_limit", status_code: 429 });
  });
});
