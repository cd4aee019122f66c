/**
 * One model call's debug capture: a fetch wrapper that keeps what each request sent and what its
 * response streamed back, as it passed (the SDK reads the same bytes, untouched), and `runs()`,
 * which turns them into the rows to store once the call is over: redacted (./redact.ts) and cut to
 * the byte cap. Nothing is written while the call runs.
 */
import type { DebugHttpRequest, DebugHttpResponse, DebugRunKind, DebugRunOutcome } from "../db/schema/debug-runs";
import { Redactor } from "./redact";

/** Who the call is for and what model it uses: the run's identity. */
export interface DebugCallIdentity {
  chatId: string;
  kind: DebugRunKind;
  traceId: string | null;
  provider: string;
  model: string;
  modelConfigId: string | null;
  transport: string;
}

/** What the caller learned of the call once it ended (the last request's). */
export interface DebugCallEnd {
  finishReason?: string | null | undefined;
  usage?: object | null | undefined;
  /** The assistant's parts as committed (or as far as they streamed). */
  parts?: unknown;
  error?: string | null | undefined;
}

/** A row of chat_debug_runs, before it is written. */
export interface NewDebugRun extends DebugCallIdentity {
  startedAt: Date;
  durationMs: number;
  status: number | null;
  error: string | null;
  request: DebugHttpRequest;
  response: DebugHttpResponse | null;
  outcome: DebugRunOutcome | null;
  bytes: number;
}

interface Exchange {
  startedAt: Date;
  startMs: number;
  endMs: number | null;
  method: string;
  url: string;
  headers: [string, string][];
  bodyText: string | null;
  response: { status: number; headers: [string, string][]; chunks: Uint8Array[]; kept: number; received: number } | null;
  error: string | null;
}

const decoder = () => new TextDecoder("utf-8");

export class DebugCapture {
  readonly #exchanges: Exchange[] = [];
  readonly #secrets = new Set<string>();
  #end: DebugCallEnd | null = null;

  constructor(
    readonly identity: DebugCallIdentity,
    /** CHAT_DEBUG_RUN_MAX_BYTES: each run's request, response and outcome together. */
    private readonly maxBytes: number,
  ) {}

  /** A value that must not appear in what is stored (the provider's key, once opened). */
  secret(value: string | null | undefined): void {
    if (value) this.#secrets.add(value);
  }

  /** How the call ended; the last request's run carries it. */
  end(end: DebugCallEnd): void {
    this.#end = end;
  }

  get requests(): number {
    return this.#exchanges.length;
  }

  /** `base` with every request and its response kept here as they pass. */
  fetch(base: typeof fetch): typeof fetch {
    return async (input, init) => {
      const request = input instanceof Request ? input : null;
      const headers = new Headers(init?.headers ?? request?.headers);
      const body = init?.body;
      const exchange: Exchange = {
        startedAt: new Date(),
        startMs: performance.now(),
        endMs: null,
        method: (init?.method ?? request?.method ?? "GET").toUpperCase(),
        url: typeof input === "string" ? input : input instanceof URL ? input.toString() : input.url,
        headers: [...headers],
        bodyText: typeof body === "string" ? body : body == null ? null : `[${Object.prototype.toString.call(body).slice(8, -1)} body]`,
        response: null,
        error: null,
      };
      this.#exchanges.push(exchange);
      let response: Response;
      try {
        response = await base(input, init);
      } catch (err) {
        exchange.error = err instanceof Error ? err.message : String(err);
        exchange.endMs = performance.now();
        throw err;
      }
      const kept = { status: response.status, headers: [...response.headers], chunks: [] as Uint8Array[], kept: 0, received: 0 };
      exchange.response = kept;
      exchange.endMs = performance.now();
      if (!response.body) return response;
      // The response share of the cap; past it, bytes are counted, not kept.
      const limit = this.maxBytes;
      const copy = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          kept.received += chunk.byteLength;
          if (kept.kept < limit) {
            const part = chunk.byteLength <= limit - kept.kept ? chunk : chunk.subarray(0, limit - kept.kept);
            kept.chunks.push(part.slice());
            kept.kept += part.byteLength;
          }
          exchange.endMs = performance.now();
          controller.enqueue(chunk);
        },
      });
      return new Response(response.body.pipeThrough(copy), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
  }

  /** The rows to store, one per request, redacted with `extraSecrets` too (the chat's MCP credentials). */
  runs(extraSecrets: Iterable<string> = []): NewDebugRun[] {
    const redactor = new Redactor([...this.#secrets, ...extraSecrets]);
    return this.#exchanges.map((exchange, i) => {
      const last = i === this.#exchanges.length - 1;
      return this.#run(exchange, redactor, last ? this.#end : null);
    });
  }

  #run(exchange: Exchange, redactor: Redactor, end: DebugCallEnd | null): NewDebugRun {
    // What is not a body (method, URL, headers, status, usage) is kept whole; the bodies share what
    // is left of the cap: the request half, the response three eighths, the outcome's parts the rest.
    const request = requestOf(exchange, redactor);
    const response = exchange.response ? responseOf(exchange.response, redactor) : null;
    const outcome = end ? outcomeOf(end, redactor) : null;
    const fixed =
      jsonBytes({ ...request, body: null }) +
      jsonBytes(response && { ...response, body: "" }) +
      jsonBytes(outcome && { ...outcome, parts: null });
    const left = Math.max(0, this.maxBytes - fixed);
    const requestShare = Math.floor(left / 2);
    const responseShare = Math.floor((left * 3) / 8);
    fitRequest(request, requestShare);
    if (response) fitResponse(response, responseShare);
    if (outcome) fitOutcome(outcome, left - requestShare - responseShare);
    const error =
      end?.error ?? exchange.error ?? (exchange.response && exchange.response.status >= 400 ? `HTTP ${exchange.response.status}` : null);
    return {
      ...this.identity,
      startedAt: exchange.startedAt,
      durationMs: Math.max(0, Math.round((exchange.endMs ?? performance.now()) - exchange.startMs)),
      status: exchange.response?.status ?? null,
      error: error === null ? null : redactor.text(error),
      request,
      response,
      outcome,
      bytes: jsonBytes(request) + jsonBytes(response) + jsonBytes(outcome),
    };
  }
}

function requestOf(exchange: Exchange, redactor: Redactor): DebugHttpRequest {
  const text = exchange.bodyText;
  const base = { method: exchange.method, url: redactor.url(exchange.url), headers: redactor.headers(exchange.headers) };
  if (text === null) return { ...base, body: null, body_truncated: false, body_bytes: 0 };
  let body: unknown;
  try {
    body = redactor.json(JSON.parse(text));
  } catch {
    body = redactor.text(text);
  }
  return { ...base, body, body_truncated: false, body_bytes: byteLength(text) };
}

function responseOf(kept: NonNullable<Exchange["response"]>, redactor: Redactor): DebugHttpResponse {
  const bytes = new Uint8Array(kept.kept);
  let offset = 0;
  for (const chunk of kept.chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return {
    status: kept.status,
    headers: redactor.headers(kept.headers),
    body: redactor.text(decoder().decode(bytes)),
    body_truncated: kept.received > kept.kept,
    body_bytes: kept.received,
  };
}

function outcomeOf(end: DebugCallEnd, redactor: Redactor): DebugRunOutcome {
  const usage = end.usage ? Object.fromEntries(Object.entries(end.usage).map(([k, v]) => [k, typeof v === "number" ? v : null])) : null;
  return {
    finish_reason: end.finishReason ?? null,
    usage,
    parts: end.parts === undefined ? null : redactor.json(end.parts),
    parts_truncated: false,
  };
}

/** A body over its share becomes the first part of its JSON text, as a string that fits the share. */
function fitRequest(request: DebugHttpRequest, share: number): void {
  if (jsonBytes(request.body) <= share) return;
  request.body = cutToJson(typeof request.body === "string" ? request.body : JSON.stringify(request.body), share);
  request.body_truncated = true;
}

function fitResponse(response: DebugHttpResponse, share: number): void {
  if (jsonBytes(response.body) <= share) return;
  response.body = cutToJson(response.body, share);
  response.body_truncated = true;
}

function fitOutcome(outcome: DebugRunOutcome, share: number): void {
  if (jsonBytes(outcome.parts) <= share) return;
  outcome.parts = cutToJson(JSON.stringify(outcome.parts), share);
  outcome.parts_truncated = true;
}

const encoder = new TextEncoder();

function byteLength(text: string): number {
  return encoder.encode(text).byteLength;
}

function jsonBytes(value: unknown): number {
  return byteLength(JSON.stringify(value) ?? "null");
}

/** The longest start of `text` whose JSON string form (quotes and escapes included) fits `maxBytes`. */
function cutToJson(text: string, maxBytes: number): string {
  let cut = text;
  for (let budget = maxBytes - 2; budget > 0; ) {
    cut = cutBytes(text, budget);
    const over = jsonBytes(cut) - maxBytes;
    if (over <= 0) return cut;
    budget -= over;
  }
  return "";
}

/** The first `maxBytes` of `text`, never splitting a character. */
function cutBytes(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.byteLength <= maxBytes) return text;
  return decoder()
    .decode(bytes.subarray(0, maxBytes))
    .replace(/\uFFFD$/, "");
}
