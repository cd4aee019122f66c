/**
 * A model call's debug capture (src/debug-runs/capture.ts): what it keeps is what passed, the SDK's
 * bytes untouched; credentials are redacted by name and by value wherever they appear; the stored
 * run stays within CHAT_DEBUG_RUN_MAX_BYTES however large the request and response are.
 */
import { describe, expect, it } from "vitest";
import { DebugCapture } from "../../../src/debug-runs/capture";
import { REDACTED, Redactor } from "../../../src/debug-runs/redact";

const identity = {
  chatId: "00000000-0000-4000-8000-000000000001",
  kind: "step" as const,
  traceId: "t1",
  provider: "openai",
  model: "gpt-4o",
  modelConfigId: null,
  transport: "openai-chat",
};

const KEY = "sk-test-0123456789abcdef";

/** A fake provider that answers `body` as an SSE stream in `chunks` pieces. */
function provider(body: string, chunks = 3): typeof fetch {
  return async () => {
    const bytes = new TextEncoder().encode(body);
    const size = Math.ceil(bytes.byteLength / chunks);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.byteLength; i += size) controller.enqueue(bytes.slice(i, i + size));
        controller.close();
      },
    });
    return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream", "x-request-id": "req_1" } });
  };
}

async function call(capture: DebugCapture, base: typeof fetch, body: unknown, headers: Record<string, string> = {}): Promise<string> {
  const res = await capture.fetch(base)("https://api.example.test/v1/chat/completions?api-key=abc", {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return res.text();
}

describe("DebugCapture", () => {
  it("passes the response through unchanged and keeps the request and response, redacted", async () => {
    const capture = new DebugCapture(identity, 64 * 1024);
    capture.secret(KEY);
    const sse = `data: {"choices":[{"delta":{"content":"the key is ${KEY}"}}]}\n\ndata: [DONE]\n\n`;
    const read = await call(
      capture,
      provider(sse),
      { model: "gpt-4o", max_tokens: 10, messages: [{ role: "user", content: `remember ${KEY}` }] },
      {
        "x-api-key": "another-credential-value",
        "cf-aig-metadata": '{"chat_id":"c"}',
      },
    );
    expect(read).toBe(sse);
    capture.end({
      finishReason: "stop",
      usage: { input_tokens: 3, output_tokens: 5 },
      parts: [{ type: "text", text: `the key is ${KEY}` }],
    });
    const [run] = capture.runs();
    expect(run).toBeDefined();
    const stored = JSON.stringify(run);
    expect(stored).not.toContain(KEY);
    expect(stored).not.toContain("another-credential-value");
    expect(run?.request.headers.authorization).toBe(REDACTED);
    expect(run?.request.headers["x-api-key"]).toBe(REDACTED);
    expect(run?.request.headers["cf-aig-metadata"]).toBe('{"chat_id":"c"}');
    expect(run?.request.url).toContain(`api-key=${encodeURIComponent(REDACTED)}`);
    expect(run?.request.body).toEqual({ model: "gpt-4o", max_tokens: 10, messages: [{ role: "user", content: `remember ${REDACTED}` }] });
    expect(run?.response?.status).toBe(200);
    expect(run?.response?.headers["x-request-id"]).toBe("req_1");
    expect(run?.response?.body).toContain(`the key is ${REDACTED}`);
    expect(run?.outcome).toEqual({
      finish_reason: "stop",
      usage: { input_tokens: 3, output_tokens: 5 },
      parts: [{ type: "text", text: `the key is ${REDACTED}` }],
      parts_truncated: false,
    });
    expect(run?.status).toBe(200);
    expect(run?.error).toBeNull();
  });

  it("cuts a large request and response to the cap, saying so", async () => {
    const maxBytes = 8 * 1024;
    const capture = new DebugCapture(identity, maxBytes);
    const big = "x".repeat(50_000);
    const sse = `data: ${"y".repeat(60_000)}\n\n`;
    expect(await call(capture, provider(sse, 7), { messages: [{ role: "user", content: big }] })).toBe(sse);
    capture.end({ finishReason: "length", parts: [{ type: "text", text: big }] });
    const [run] = capture.runs();
    expect(run?.request.body_truncated).toBe(true);
    expect(run?.request.body_bytes).toBeGreaterThan(50_000);
    expect(typeof run?.request.body).toBe("string");
    expect(run?.response?.body_truncated).toBe(true);
    expect(run?.response?.body_bytes).toBe(new TextEncoder().encode(sse).byteLength);
    expect(run?.outcome?.parts_truncated).toBe(true);
    expect(run?.bytes).toBeLessThanOrEqual(maxBytes);
    expect(new TextEncoder().encode(JSON.stringify([run?.request, run?.response, run?.outcome])).byteLength).toBeLessThan(maxBytes + 1024);
  });

  it("records a request whose connection failed, with the error and no response", async () => {
    const capture = new DebugCapture(identity, 16 * 1024);
    const failing: typeof fetch = async () => {
      throw new TypeError(`connect failed for ${KEY}`);
    };
    capture.secret(KEY);
    await expect(call(capture, failing, { a: 1 })).rejects.toThrow(TypeError);
    const [run] = capture.runs();
    expect(run?.response).toBeNull();
    expect(run?.status).toBeNull();
    expect(run?.error).toBe(`connect failed for ${REDACTED}`);
  });
});

describe("Redactor", () => {
  it("redacts credential fields by name but keeps token counts", () => {
    const r = new Redactor(["s3cr3t-value-1"]);
    expect(r.json({ api_key: "k", max_tokens: 5, nested: [{ token: "t", text: "x s3cr3t-value-1 y" }], password: null })).toEqual({
      api_key: REDACTED,
      max_tokens: 5,
      nested: [{ token: REDACTED, text: `x ${REDACTED} y` }],
      password: null,
    });
  });

  it("ignores values too short to be secrets and replaces the longest secret first", () => {
    const r = new Redactor(["abc", "secret-one", "secret-one-and-more"]);
    expect(r.text("abc secret-one-and-more secret-one")).toBe(`abc ${REDACTED} ${REDACTED}`);
  });
});
