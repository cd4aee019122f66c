/**
 * The smoke run against a deployed instance (scripts/smoke.ts): health, sign-in or token, a chat
 * created, a message sent, its stream followed until the answer is committed and the chat waits
 * again, the chat archived, the session signed out. Only the public API, over HTTP and the stream
 * WebSocket, as a client would. Each step is timed and bounded; the first that fails ends the run
 * with a SmokeFailure naming it, after which what the run made is archived and signed out anyway.
 */
import WebSocket from "ws";

export type SmokeAuth = { token: string } | { email: string; password: string };

export interface SmokeOptions {
  /** The service's origin, e.g. https://chatd.example.com (routes are under /api/v2). */
  baseUrl: string;
  auth: SmokeAuth;
  prompt: string;
  organizationId?: string | undefined;
  modelConfigId?: string | undefined;
  /** Bound of each HTTP step and of opening the stream. */
  stepTimeoutMs: number;
  /** Bound of the answer: from the send until the chat waits again with the answer committed. */
  answerTimeoutMs: number;
}

export interface StepResult {
  step: string;
  ms: number;
  [field: string]: unknown;
}

/** What came back when a step failed: the HTTP status and error body, a close code, or a timeout. */
export interface FailureDetail {
  message: string;
  status?: number;
  code?: string;
  detail?: string;
}

export class SmokeFailure extends Error {
  step = "";
  ms = 0;
  constructor(readonly failure: FailureDetail) {
    super(failure.message);
  }
}

interface Chat {
  id: string;
  status: string;
  archived: boolean;
  last_error: { message: string } | null;
}

interface ChatMessage {
  id: string;
  role: string;
  content: { type: string; text?: string }[];
}

type StreamEvent =
  | { type: "status"; status: { status: string } }
  | { type: "message"; message: ChatMessage }
  | { type: "message_part" }
  | { type: "retry"; retry: { attempt: number; error: string } }
  | { type: "error"; error: { message: string; detail: string | null; kind: string; status_code: number | null } }
  | { type: string };

/** Runs every step; resolves with the chat's id, or rejects with the first step's SmokeFailure. */
export async function runSmoke(opts: SmokeOptions, onStep: (r: StepResult) => void): Promise<{ chatId: string }> {
  const api = `${opts.baseUrl}/api/v2`;
  let token = "token" in opts.auth ? opts.auth.token : "";
  let signedIn = false;
  let chat: Chat | undefined;
  let archived = false;
  let stream: StreamWatch | undefined;

  const step = async <T>(name: string, fn: () => Promise<[T, Record<string, unknown>?]>): Promise<T> => {
    const started = performance.now();
    try {
      const [value, fields] = await fn();
      onStep({ step: name, ms: Math.round(performance.now() - started), ...fields });
      return value;
    } catch (err) {
      const failure = err instanceof SmokeFailure ? err : new SmokeFailure({ message: describeError(err, opts.stepTimeoutMs) });
      failure.step = name;
      failure.ms = Math.round(performance.now() - started);
      throw failure;
    }
  };
  const call = <T>(method: string, path: string, body?: unknown) => request<T>(api, method, path, token, body, opts.stepTimeoutMs);

  try {
    await step("health", async () => {
      const health = await call<{ ok: boolean; db: string }>("GET", "/health");
      if (health.ok !== true) throw new SmokeFailure({ message: `expected {ok: true}, got ${JSON.stringify(health)}` });
      return [undefined, { db: health.db }];
    });
    if ("email" in opts.auth) {
      const { email, password } = opts.auth;
      await step("sign_in", async () => {
        const session = await call<{ session_token: string; expires_at: string }>("POST", "/users/login", { email, password });
        token = session.session_token;
        signedIn = true;
        return [undefined, { email, expires_at: session.expires_at }];
      });
    } else {
      await step("token", async () => {
        const me = await call<{ id: string; username: string }>("GET", "/users/me");
        return [undefined, { user_id: me.id, username: me.username }];
      });
    }
    chat = await step("create_chat", async () => {
      const created = await call<Chat>("POST", "/chats", {
        content: [],
        // A title of its own: no title call to the model, and the chat is easy to recognize.
        title: `smoke test ${new Date().toISOString()}`,
        labels: { "chatd-smoke": "true" },
        ...(opts.organizationId ? { organization_id: opts.organizationId } : {}),
        ...(opts.modelConfigId ? { model_config_id: opts.modelConfigId } : {}),
      });
      if (created.status !== "waiting") throw new SmokeFailure({ message: `expected status waiting, got ${created.status}` });
      return [created, { chat_id: created.id }];
    });
    const chatId = chat.id;
    stream = await step("open_stream", async () => {
      const watch = new StreamWatch(`${api.replace(/^http/, "ws")}/chats/${chatId}/stream`, token);
      await watch.bootstrapped(opts.stepTimeoutMs);
      return [watch, { status: watch.status }];
    });
    const watch = stream;
    const sentAt = performance.now();
    await step("send_message", async () => {
      const sent = await call<{ queued: boolean; message?: { id: string } }>("POST", `/chats/${chatId}/messages`, {
        content: [{ type: "text", text: opts.prompt }],
      });
      if (sent.queued) throw new SmokeFailure({ message: "the message was queued: the chat was busy" });
      return [undefined, { message_id: sent.message?.id }];
    });
    await step("answer", async () => {
      const answer = await watch.answer(opts.answerTimeoutMs, async () => (await call<Chat>("GET", `/chats/${chatId}`)).status);
      const text = answer.content.flatMap((p) => (p.type === "text" && p.text ? [p.text] : [])).join("");
      const firstPartMs = watch.firstPartAt === undefined ? null : Math.round(watch.firstPartAt - sentAt);
      return [undefined, { first_part_ms: firstPartMs, parts: watch.partCount, answer_chars: text.length, answer: text.slice(0, 80) }];
    });
    watch.close();
    await step("archive", async () => {
      // PATCH answers 204 with no body (Coder's status code): the chat is read back.
      await call("PATCH", `/chats/${chatId}`, { archived: true });
      const updated = await call<Chat>("GET", `/chats/${chatId}`);
      if (!updated.archived) throw new SmokeFailure({ message: "the chat is not archived" });
      archived = true;
      return [undefined, { chat_id: chatId }];
    });
    if (signedIn) {
      await step("sign_out", async () => {
        await call("POST", "/users/logout");
        signedIn = false;
        return [undefined];
      });
    }
    return { chatId };
  } finally {
    // After a failure: leave nothing running or signed in. Best effort; the failure stands.
    stream?.close();
    if (chat && !archived) await call("PATCH", `/chats/${chat.id}`, { archived: true, interrupt: true }).catch(() => {});
    if (signedIn) await call("POST", "/users/logout").catch(() => {});
  }
}

async function request<T>(api: string, method: string, path: string, token: string, body: unknown, timeoutMs: number): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${api}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const error = (json ?? {}) as { message?: string; code?: string; detail?: string };
    const retryAfter = res.headers.get("retry-after");
    throw new SmokeFailure({
      status: res.status,
      ...(error.code ? { code: error.code } : {}),
      message: error.message ?? (text.slice(0, 200) || res.statusText),
      ...(error.detail ? { detail: error.detail } : retryAfter ? { detail: `Retry-After: ${retryAfter}` } : {}),
    });
  }
  if (json === undefined && text) throw new SmokeFailure({ status: res.status, message: `not JSON: ${text.slice(0, 200)}` });
  return json as T;
}

function describeError(err: unknown, timeoutMs: number): string {
  if (err instanceof DOMException && err.name === "TimeoutError") return `no answer within ${timeoutMs} ms`;
  if (err instanceof Error) {
    const cause = err.cause as { code?: string; message?: string } | undefined;
    return cause ? `${err.message}: ${cause.code ?? cause.message}` : err.message;
  }
  return String(err);
}

/** The chat's stream socket: its latest status, the assistant's committed messages, parts seen. */
class StreamWatch {
  status: string | undefined;
  firstPartAt: number | undefined;
  partCount = 0;
  #assistant: ChatMessage | undefined;
  #error: FailureDetail | undefined;
  /** The server's reason for closing, sent just before it closes. */
  #closing: { code: string; message: string } | undefined;
  /** A model call that failed and will be retried: a timeout says so. */
  #lastRetry: { attempt: number; error: string } | undefined;
  #ended: FailureDetail | undefined;
  #frames = 0;
  #onChange: (() => void) | undefined;
  readonly #socket: WebSocket;

  constructor(url: string, token: string) {
    this.#socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    this.#socket.on("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => {
        const error = parseJson(body) as { message?: string; code?: string } | undefined;
        this.#end({
          status: res.statusCode ?? 0,
          ...(error?.code ? { code: error.code } : {}),
          message: error?.message ?? "upgrade refused",
        });
        _req.destroy();
      });
    });
    this.#socket.on("error", (err) => this.#end({ message: describeError(err, 0) }));
    this.#socket.on("close", (code, reason) =>
      this.#end(
        this.#closing
          ? { code: this.#closing.code, message: `${this.#closing.message} (stream closed: ${code})` }
          : { message: `stream closed: ${code} ${reason.toString()}`.trim() },
      ),
    );
    this.#socket.on("message", (data) => this.#frame(data.toString()));
  }

  bootstrapped(timeoutMs: number): Promise<void> {
    return this.#until(timeoutMs, `the stream's first status did not come within ${timeoutMs} ms`, () => this.status !== undefined);
  }

  /**
   * Resolves with the answer once an assistant message is committed and the chat waits again.
   * A turn's first step may commit a message while it goes on, and a quick turn may never show
   * the stream another status: `chatStatus` (a read of the chat) confirms the end.
   */
  async answer(timeoutMs: number, chatStatus: () => Promise<string>): Promise<ChatMessage> {
    const deadline = performance.now() + timeoutMs;
    const late = `the answer did not come within ${timeoutMs} ms`;
    const left = () => Math.max(0, deadline - performance.now());
    const failed = () => {
      if (this.#error) throw new SmokeFailure(this.#error);
    };
    for (;;) {
      await this.#until(left(), late, () => {
        failed();
        return this.#assistant !== undefined && this.status === "waiting";
      });
      const frames = this.#frames;
      if ((await chatStatus()) === "waiting" && this.#assistant) return this.#assistant;
      // Still running: check again after the stream's next frame (at once if one came meanwhile).
      if (this.#frames === frames)
        await this.#until(
          left(),
          late,
          () => {
            failed();
            return true;
          },
          true,
        );
    }
  }

  close(): void {
    if (this.#socket.readyState === WebSocket.OPEN || this.#socket.readyState === WebSocket.CONNECTING) this.#socket.close(1000);
  }

  #frame(text: string): void {
    const frame = parseJson(text);
    if (Array.isArray(frame)) {
      for (const event of frame as StreamEvent[]) this.#event(event);
    } else if (frame && typeof frame === "object" && "error" in frame) {
      // The one frame that is not an array: why the server closes the socket next.
      this.#closing = (frame as { error: { code: string; message: string } }).error;
    }
    this.#frames += 1;
    this.#onChange?.();
  }

  #event(event: StreamEvent): void {
    if (event.type === "status" && "status" in event) this.status = event.status.status;
    else if (event.type === "message" && "message" in event && event.message.role === "assistant") this.#assistant = event.message;
    else if (event.type === "message_part") {
      this.firstPartAt ??= performance.now();
      this.partCount += 1;
    } else if (event.type === "retry" && "retry" in event) {
      this.#lastRetry = { attempt: event.retry.attempt, error: event.retry.error };
    } else if (event.type === "error" && "error" in event) {
      const e = event.error;
      this.#error = {
        message: `the chat is in error: ${e.message}`,
        code: e.kind,
        ...(e.status_code ? { status: e.status_code } : {}),
        ...(e.detail ? { detail: e.detail } : {}),
      };
    }
  }

  #end(detail: FailureDetail): void {
    this.#ended ??= detail;
    this.#onChange?.();
  }

  /** Where the chat stood, for a timeout's message: its status, parts seen, the last retry's error. */
  #progress(): string {
    const retry = this.#lastRetry ? `, retry ${this.#lastRetry.attempt} after: ${this.#lastRetry.error}` : "";
    return `status ${this.status ?? "unknown"}, ${this.partCount} parts${retry}`;
  }

  /** Waits until `done()` holds: checked after every frame, and at once unless `nextFrame`. */
  #until(timeoutMs: number, what: string, done: () => boolean, nextFrame = false): Promise<void> {
    return new Promise((resolve, reject) => {
      const finish = (err?: unknown) => {
        clearTimeout(timer);
        this.#onChange = undefined;
        if (err) reject(err);
        else resolve();
      };
      const timer = setTimeout(() => finish(new SmokeFailure({ message: `${what} (${this.#progress()})` })), timeoutMs);
      const check = () => {
        try {
          if (done()) return finish();
          if (this.#ended) finish(new SmokeFailure(this.#ended));
        } catch (err) {
          finish(err);
        }
      };
      this.#onChange = check;
      if (!nextFrame) check();
    });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
