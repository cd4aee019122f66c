// A fake LLM provider over plain node:http. It speaks the real streaming wire
// formats of OpenAI Chat Completions, OpenAI Responses and Anthropic Messages,
// so real SDK clients can be exercised end to end without a network or a bill.
// The reply is scripted by directives in the last user message (see script.ts
// and docs/fake-model.md).

import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

import { anthropicMessages } from "./anthropic-messages";
import { type ContextWire, contextExceededBody, contextLimitOf, promptTokens } from "./context-window";
import { openAIChat } from "./openai-chat";
import { openAIResponses } from "./openai-responses";
import { filesReplyText, RequestLog } from "./request-log";
import { Gates } from "./gates";
import { GATE_NAME, parseScript, STAMP_NONSTREAM_TEXT, tokenize } from "./script";
import { usageDirective } from "./usage-directive";
import { stampAtWrite } from "./stamp-tokens";
import type { Script, StreamEnding } from "./script";
import { BadRequestError } from "./wire";
import { searchResults, StoredItems, webSearchItemId } from "./web-search";
import type { Frame, ModelRequest, Reply, ReplyContent, WireFormat } from "./wire";

export interface FakeModelOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /**
   * Sent as `retry-after-ms` on retryable errors (408/409/429/5xx) so SDK retries
   * are fast in tests; the AI SDK otherwise backs off 2 s, 4 s, …. `null` omits it.
   */
  retryAfterMs?: number | null;
  /** One JSON line per request on stdout; defaults to `FAKE_MODEL_LOG=1`. */
  log?: boolean;
  /** The context window of models whose id names none (`-ctx<N>`); null (the default): unlimited. */
  contextLimit?: number | null;
}

export type Endpoint = "chat_completions" | "responses" | "messages" | "models" | "health" | "not_found";

export interface FakeModelStats {
  /** Requests received per endpoint, including ones answered with a scripted error. */
  requests: Record<Endpoint, number>;
  /** Scripted `/error` responses sent. */
  errors: number;
  /** Requests whose client went away before the response was complete. */
  aborted: number;
  /** Requests currently being answered (e.g. hanging or slow streams). */
  inFlight: number;
}

export interface FakeModelServer {
  url: string;
  port: number;
  close(): Promise<void>;
  stats(): FakeModelStats;
}

const DEFAULT_HOST = "127.0.0.1";
const DEFAULT_RETRY_AFTER_MS = 10;
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Tool-call arguments are streamed in this many fragments (fewer for tiny argument strings). */
const TOOL_ARG_FRAGMENTS = 3;
const FAKE_MODEL_IDS = ["fake", "fake-large"] as const;

const MODEL_ROUTES: Record<string, { endpoint: Endpoint; format: WireFormat; wire: ContextWire }> = {
  "/chat/completions": { endpoint: "chat_completions", format: openAIChat, wire: "openai_chat" },
  "/responses": { endpoint: "responses", format: openAIResponses, wire: "openai_responses" },
  "/messages": { endpoint: "messages", format: anthropicMessages, wire: "anthropic" },
};

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
};

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Clients may use a base URL with or without `/v1`; both route the same. */
function routePath(rawUrl: string | undefined): string {
  const path = (rawUrl ?? "/").split("?")[0] ?? "/";
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path;
  return trimmed.startsWith("/v1/") ? trimmed.slice("/v1".length) : trimmed;
}

function splitArgs(args: string): string[] {
  const size = Math.max(1, Math.ceil(args.length / TOOL_ARG_FRAGMENTS));
  const fragments: string[] = [];
  for (let i = 0; i < args.length; i += size) fragments.push(args.slice(i, i + size));
  return fragments.length > 0 ? fragments : [""];
}

/** Resolves when `ms` elapse or the signal aborts, whichever comes first; never leaks the timer. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Resolves when the response can take more, or the signal aborts (a reader gone never drains). */
function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    res.once("drain", done);
    signal.addEventListener("abort", done, { once: true });
  });
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BadRequestError("request body too large"));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function modelList(anthropicShape: boolean): unknown {
  if (anthropicShape) {
    const data = FAKE_MODEL_IDS.map((id) => ({
      type: "model",
      id,
      display_name: id,
      created_at: "2024-01-01T00:00:00Z",
    }));
    return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
  }
  return {
    object: "list",
    data: FAKE_MODEL_IDS.map((id) => ({ id, object: "model", created: 0, owned_by: "fake-model" })),
  };
}

export async function startFakeModel(opts: FakeModelOptions = {}): Promise<FakeModelServer> {
  const host = opts.host ?? DEFAULT_HOST;
  const retryAfterMs = opts.retryAfterMs === undefined ? DEFAULT_RETRY_AFTER_MS : opts.retryAfterMs;
  const logEnabled = opts.log ?? process.env["FAKE_MODEL_LOG"] === "1";
  const contextLimit = opts.contextLimit ?? null;

  const requests: Record<Endpoint, number> = {
    chat_completions: 0,
    responses: 0,
    messages: 0,
    models: 0,
    health: 0,
    not_found: 0,
  };
  let errorsSent = 0;
  let aborted = 0;
  let responseCounter = 0;
  let toolCallCounter = 0;
  // Per prompt string (endpoint-independent) and per kind of request (streaming or not), how many
  // requests carried it: drives `/error <status> <times>`. Apart, because a service's background
  // call (a chat's title) carries the user's text too and would otherwise take a failure meant for
  // the turn, or not, as the two race.
  const promptSeen = new Map<string, number>();
  // Aborting these on close() ends hanging or slow responses so close() cannot stall.
  const inFlight = new Set<AbortController>();
  // What each request carried (docs/fake-model.md "Request log").
  const requestLog = new RequestLog();
  // `/gate` streams waiting for `POST /_gates/<name>`.
  const gates = new Gates();
  // Responses items a later request may name by `item_reference` (web-search.ts).
  const storedItems = new StoredItems();

  const log = (entry: Record<string, unknown>): void => {
    if (logEnabled) process.stdout.write(`${JSON.stringify({ event: "fake_model_request", ...entry })}\n`);
  };

  /** `/error … <times>`: fail the first <times> requests with this prompt, then run the fallback. */
  function resolveScript(script: Script, prompt: string, stream: boolean): Exclude<Script, { kind: "nonstream_error" }> {
    if (script.kind === "nonstream_error") {
      if (stream) return script.streaming;
      return { kind: "error", status: script.status, message: script.message, failures: "always", afterwards: script.streaming };
    }
    if (script.kind === "text" && script.stamped && !stream)
      return { kind: "text", tokens: tokenize(STAMP_NONSTREAM_TEXT), tokenDelayMs: 0 };
    if (script.kind !== "error") return script;
    // A mid-stream error is a streaming fault: a non-streaming request just gets the text.
    if (script.midStream && !stream) return script.afterwards;
    const key = `${stream ? "stream" : "json"}:${prompt}`;
    const seen = (promptSeen.get(key) ?? 0) + 1;
    promptSeen.set(key, seen);
    return script.failures === "always" || seen <= script.failures ? script : script.afterwards;
  }

  /** Applies max-token truncation, assigns ids and computes usage. */
  function buildCountedReply(
    script: Extract<Script, { kind: "text" | "tool_call" | "tool_calls" }>,
    request: ModelRequest,
    inputTokens: number,
  ): Reply {
    responseCounter += 1;
    let content: ReplyContent;
    let finish: Reply["finish"];
    let outputTokens: number;
    if (script.kind === "text") {
      const limit = request.maxTokens;
      const truncated = limit !== undefined && script.tokens.length > limit;
      const tokens = truncated ? script.tokens.slice(0, Math.max(0, limit)) : script.tokens;
      const blockStarts = script.blockStarts?.filter((start) => start < tokens.length);
      const search = script.webSearch && request.webSearch ? script.webSearch : undefined;
      if (search) toolCallCounter += 1;
      content = {
        type: "text",
        tokens,
        ...(script.reasoning ? { reasoning: script.reasoning } : {}),
        ...(blockStarts ? { blockStarts } : {}),
        ...(search
          ? {
              webSearch: {
                callNumber: toolCallCounter,
                query: search.query,
                results: searchResults(search.query),
                includeSources: request.webSearch?.includeSources ?? false,
              },
            }
          : {}),
      };
      finish = truncated ? "length" : "stop";
      outputTokens = tokens.length;
    } else {
      const calls = (script.kind === "tool_call" ? [script] : script.calls).map(({ name, args }) => {
        toolCallCounter += 1;
        return { callNumber: toolCallCounter, name, args, argChunks: splitArgs(args) };
      });
      content = { type: "tool_call", calls };
      finish = "tool_calls";
      outputTokens = calls.reduce((sum, call) => sum + call.argChunks.length, 0);
    }
    return {
      responseNumber: responseCounter,
      model: request.model,
      createdAtSeconds: Math.floor(Date.now() / 1000),
      content,
      finish,
      tokenDelayMs: script.kind === "text" ? script.tokenDelayMs : 0,
      usage: { inputTokens, outputTokens },
      includeUsage: request.includeUsage,
      // Only a stream can stop short; a non-streaming `/cut` or `/reset` answers in full.
      ending: script.kind === "text" && request.stream ? (script.ending ?? "finish") : "finish",
    };
  }

  async function writeFrames(
    res: ServerResponse,
    frames: Frame[],
    signal: AbortSignal,
    ending: StreamEnding = "finish",
    gate?: string,
  ): Promise<void> {
    let paused = false;
    for (const frame of frames) {
      if (signal.aborted) return;
      if (typeof frame === "object") {
        // `/gate`: the first pause follows the first token; the rest waits there for the gate.
        if (gate !== undefined && !paused) await gates.wait(gate, signal);
        paused = true;
        await sleep(frame.pauseMs, signal);
        continue;
      }
      // A slow reader holds the next frame back, as a provider's socket does: a `/stamp` time is
      // then the moment the socket took the token, not when it was queued behind the others.
      if (!res.write(typeof frame === "string" ? frame : frame())) await drained(res, signal);
    }
    if (signal.aborted) return;
    if (ending === "reset") {
      // Let the written frames reach the client first, then drop the connection under it.
      await new Promise<void>((resolve) => res.write("", () => resolve()));
      res.socket?.resetAndDestroy();
    } else res.end();
  }

  async function handleModel(
    req: IncomingMessage,
    res: ServerResponse,
    route: { endpoint: Endpoint; format: WireFormat; wire: ContextWire },
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const format = route.format;
    let request: ModelRequest;
    let files: string;
    let inputTokens: number;
    try {
      const body = JSON.parse(await readBody(req)) as unknown;
      request = format.readRequest(body, { storedItems });
      files = filesReplyText(requestLog.add(route.endpoint, body, req.headers).files);
      inputTokens = promptTokens(body);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      sendJson(res, 400, format.encodeError(400, `fake-model: invalid request: ${message}`));
      return { status: 400, script: "invalid_request" };
    }

    // `/usage`: the reply reports the usage the prompt names (usage-directive.ts).
    const directed = usageDirective(request.turn);
    request = { ...request, turn: directed.turn };
    const buildReply = (script: Parameters<typeof buildCountedReply>[0], req: ModelRequest, counted: number): Reply => {
      const reply = buildCountedReply(script, req, counted);
      return directed.usage ? { ...reply, usage: directed.usage } : reply;
    };

    const window = contextLimitOf(request.model, contextLimit);
    if (window !== null && inputTokens > window) {
      sendJson(res, 400, contextExceededBody(route.wire, window, inputTokens));
      return { stream: request.stream, status: 400, script: "context_length_exceeded", input_tokens: inputTokens };
    }

    // `/files`: answer with the file parts received (request-log.ts).
    const filesDirective = request.turn.kind === "user" && /^\/files(\s|$)/.test(request.turn.text.trimStart());
    const script: Exclude<Script, { kind: "nonstream_error" }> = filesDirective
      ? { kind: "text", tokens: tokenize(files), tokenDelayMs: 0 }
      : resolveScript(
          parseScript(request.turn, request.tools, { webSearch: request.webSearch !== undefined }),
          request.turn.text,
          request.stream,
        );
    const logFields = { stream: request.stream, turn: request.turn.kind, script: script.kind };

    if (script.kind === "error" && script.midStream && request.stream) {
      // The first half of the answer, then the provider's error event inside the 200 stream.
      errorsSent += 1;
      const { tokens } = script.afterwards;
      const partial = { ...script.afterwards, tokens: tokens.slice(0, Math.max(1, Math.ceil(tokens.length / 2))) };
      const reply = buildReply(partial, request, inputTokens);
      res.writeHead(200, SSE_HEADERS);
      const frames = [...format.encodeStream({ ...reply, ending: "error" }), format.encodeStreamError(script.status, script.message)];
      await writeFrames(res, frames, signal, "finish", partial.gate);
      return { ...logFields, status: 200, stream_error: script.status };
    }
    if (script.kind === "error") {
      errorsSent += 1;
      const headers: Record<string, string> =
        retryAfterMs !== null && isRetryableStatus(script.status) ? { "retry-after-ms": String(retryAfterMs) } : {};
      sendJson(res, script.status, format.encodeError(script.status, script.message), headers);
      return { ...logFields, status: script.status };
    }
    if (script.kind === "hang") {
      // Streaming clients see an open SSE stream that never delivers; others never see headers.
      if (request.stream) {
        res.writeHead(200, SSE_HEADERS);
        res.flushHeaders();
      }
      await untilAborted(signal);
      return { ...logFields, status: request.stream ? 200 : null };
    }

    const reply = buildReply(script, request, inputTokens);
    // A stored response's items can be referenced by later requests (`store: false` stores none).
    if (reply.content.type === "text" && reply.content.webSearch && request.storesItems)
      storedItems.add(webSearchItemId(reply.content.webSearch));
    const encoded = format.encodeStream(reply);
    const frames = script.kind === "text" && script.stamped ? stampAtWrite(encoded) : encoded;
    if (request.stream) {
      res.writeHead(200, SSE_HEADERS);
      await writeFrames(res, frames, signal, reply.ending, script.kind === "text" ? script.gate : undefined);
    } else {
      // Non-streaming replies still take as long as the paced stream would.
      for (const frame of frames) if (typeof frame === "object") await sleep(frame.pauseMs, signal);
      if (!signal.aborted) sendJson(res, 200, format.encodeJson(reply));
    }
    return { ...logFields, status: 200, finish: reply.finish, output_tokens: reply.usage.outputTokens };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const path = routePath(req.url);
    const controller = new AbortController();
    inFlight.add(controller);
    // `close` before the response finished means the client hung up: stop writing, drop timers.
    res.on("close", () => {
      if (!res.writableFinished && !controller.signal.aborted) {
        aborted += 1;
        controller.abort();
      }
      inFlight.delete(controller);
    });
    res.on("error", () => controller.abort());
    req.on("error", () => controller.abort());

    let fields: Record<string, unknown>;
    const modelRoute = MODEL_ROUTES[path];
    if (req.method === "POST" && modelRoute !== undefined) {
      requests[modelRoute.endpoint] += 1;
      fields = { endpoint: modelRoute.endpoint, ...(await handleModel(req, res, modelRoute, controller.signal)) };
    } else if (req.method === "GET" && path === "/_requests") {
      const contains = new URL(req.url ?? "/", "http://fake").searchParams.get("contains") ?? "";
      sendJson(res, 200, { requests: requestLog.find(contains) });
      fields = { endpoint: "requests", status: 200 };
    } else if (req.method === "POST" && path.startsWith("/_gates/")) {
      const name = path.slice("/_gates/".length);
      if (GATE_NAME.test(name)) {
        gates.open(name);
        sendJson(res, 200, { opened: name });
        fields = { endpoint: "gates", status: 200 };
      } else {
        sendJson(res, 400, { error: { message: `fake-model: not a gate name: ${name}`, type: "invalid_request" } });
        fields = { endpoint: "gates", status: 400 };
      }
    } else if (req.method === "GET" && path === "/health") {
      requests.health += 1;
      sendJson(res, 200, { ok: true });
      fields = { endpoint: "health", status: 200 };
    } else if (req.method === "GET" && path === "/models") {
      requests.models += 1;
      sendJson(res, 200, modelList(req.headers["anthropic-version"] !== undefined));
      fields = { endpoint: "models", status: 200 };
    } else {
      requests.not_found += 1;
      sendJson(res, 404, { error: { message: `fake-model: no route for ${req.method} ${path}`, type: "not_found" } });
      fields = { endpoint: "not_found", status: 404 };
    }
    log({ method: req.method, path, ...fields, aborted: controller.signal.aborted, ms: Date.now() - started });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A bug here must not take the process down mid-test; report it as a 500.
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error), type: "server_error" } });
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    stats: () => ({ requests: { ...requests }, errors: errorsSent, aborted, inFlight: inFlight.size }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const controller of inFlight) controller.abort();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
