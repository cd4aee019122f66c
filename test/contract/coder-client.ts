/**
 * A client that talks to the service the way Coder's clients do (coder-routes.ts) and judges
 * every answer and frame against the recorded shapes (coder-shapes.ts).
 *
 * Two ways in, as Coder's two clients authenticate:
 * - `sdk`: the Go codersdk, a `Coder-Session-Token` header on every request and WebSocket dial;
 * - `browser`: the web UI on the service's own origin, the `coder_session_token` cookie, with the
 *   `Origin` header a browser adds to a same-origin change or WebSocket upgrade.
 *
 * A mismatch does not stop the session: it is recorded (route or socket, event, field path, what
 * arrived), and the raw answer is handed back so the session can go on and find the next one.
 * Each step of the session then asserts that it recorded none, so a run lists every difference
 * at once. A non-2xx answer where Coder expects success does stop the step (no client would go on).
 */
import WebSocket from "ws";
import type { z } from "zod";
import { CODER_ROUTES, CODER_SOCKETS, type CoderRouteName } from "./coder-routes";
import { ChatStreamEvent } from "./coder-shapes";
import { departureFor } from "./departures";

export type CoderAuth = { kind: "sdk"; token: string } | { kind: "browser"; token: string };

/** One difference between what arrived and what Coder's client decodes. */
export interface Mismatch {
  where: string;
  problem: string;
}

/** zod's issues as `field: problem (got …)` lines, the field as a dotted path from the body. */
export function describeIssues(error: z.ZodError, value: unknown): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join(".") || "(body)";
    let got: unknown = value;
    for (const key of issue.path) got = got == null ? undefined : (got as Record<PropertyKey, unknown>)[key as PropertyKey];
    const shown = got === undefined ? "absent" : JSON.stringify(got)?.slice(0, 80);
    return `${path}: ${issue.message} (got ${shown})`;
  });
}

/** Any JSON the service sent, read loosely so the session can go on after a mismatch. */
// biome-ignore lint/suspicious/noExplicitAny: the raw wire, judged separately by the schemas
export type Raw = any;

/** Records a difference unless it is a documented departure (departures.ts). */
function record(into: Mismatch[], where: string, problem: string): void {
  if (departureFor(where, problem) === undefined) into.push({ where, problem });
}

export class CoderClient {
  readonly mismatches: Mismatch[] = [];

  constructor(
    readonly baseUrl: string,
    readonly auth: CoderAuth,
  ) {}

  /**
   * The mismatches recorded since the last call, as lines for an assertion's message: one line
   * per kind of difference (the same field of every list element or event counts once, with how
   * many times it was seen), so a step's report stays readable.
   */
  take(): string[] {
    const seen = new Map<string, { line: string; count: number }>();
    for (const m of this.mismatches.splice(0)) {
      const problem = m.problem.replace(/^(\d+\.)|(?<=\.)\d+(?=[.:])/g, (d) => (d.endsWith(".") ? "*." : "*"));
      const key = `${m.where.replace(/\?.*? \(/, " (")}: ${problem.replace(/ \(got .*\)$/, "")}`;
      const entry = seen.get(key);
      if (entry) entry.count++;
      else seen.set(key, { line: `${m.where}: ${m.problem}`, count: 1 });
    }
    return [...seen.values()].map(({ line, count }) => (count > 1 ? `${line} [seen ${count} times]` : line));
  }

  private headers(change: boolean): Record<string, string> {
    if (this.auth.kind === "sdk") return { "Coder-Session-Token": this.auth.token };
    const h: Record<string, string> = { cookie: `coder_session_token=${this.auth.token}` };
    // A browser sends Origin on a same-origin request that changes something.
    if (change) h.origin = new URL(this.baseUrl).origin;
    return h;
  }

  /**
   * Calls a route as its Coder caller does; the answer's body (parsed, unvalidated) after
   * recording any mismatch of status or shape.
   */
  async call(
    name: CoderRouteName,
    params: Record<string, string | number> = {},
    opts: { body?: unknown; query?: Record<string, string | number> } = {},
  ): Promise<{ status: number; body: Raw }> {
    const route = CODER_ROUTES[name];
    const path = route.path.replace(/\{(\w+)\}/g, (_, key: string) => {
      if (params[key] === undefined) throw new Error(`${name}: no value for {${key}}`);
      return encodeURIComponent(String(params[key]));
    });
    const url = new URL(path, this.baseUrl);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, String(v));
    const headers = this.headers(route.method !== "GET");
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(url, {
      method: route.method,
      headers,
      ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
    });
    const text = await res.text();
    const where = `${route.method} ${route.path}${url.search} (${route.caller})`;
    if (res.status < 200 || res.status > 299) {
      throw new Error(`${where}: answered ${res.status}, Coder's client expects ${route.status}: ${text.slice(0, 300)}`);
    }
    if (route.status !== "2xx" && res.status !== route.status) {
      record(this.mismatches, where, `status ${res.status}, codersdk requires ${route.status}`);
    }
    let body: Raw;
    if ("body" in route && route.body) {
      try {
        body = JSON.parse(text);
      } catch {
        record(this.mismatches, where, `body is not JSON: ${text.slice(0, 120)}`);
        return { status: res.status, body: undefined };
      }
      const parsed = route.body.safeParse(body);
      if (!parsed.success) for (const line of describeIssues(parsed.error, body)) record(this.mismatches, where, line);
    }
    return { status: res.status, body };
  }

  /** A failing call's status and body, checked against codersdk's error body. */
  async callExpectingError(
    name: CoderRouteName,
    params: Record<string, string | number>,
    opts: { body?: unknown } = {},
  ): Promise<{ status: number; body: Raw }> {
    const route = CODER_ROUTES[name];
    const path = route.path.replace(/\{(\w+)\}/g, (_, key: string) => encodeURIComponent(String(params[key])));
    const headers = this.headers(route.method !== "GET");
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(new URL(path, this.baseUrl), {
      method: route.method,
      headers,
      ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
    });
    const body: Raw = await res.json().catch(() => undefined);
    return { status: res.status, body };
  }

  /** Opens `/stream` (an array of events per frame) or `/watch` (one event per frame). */
  async open(socket: "stream", params: { chat: string }): Promise<Socket>;
  async open(socket: "watch"): Promise<Socket>;
  async open(socket: keyof typeof CODER_SOCKETS, params: { chat?: string } = {}): Promise<Socket> {
    const spec = CODER_SOCKETS[socket];
    const path = spec.path.replace("{chat}", params.chat ?? "");
    const url = new URL(path, this.baseUrl.replace(/^http/, "ws"));
    const ws = new WebSocket(url, { headers: this.headers(true) });
    const s = new Socket(ws, `${socket} ${spec.path} (${spec.caller})`, socket, this.mismatches);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("unexpected-response", (_req, res) => reject(new Error(`${s.where}: upgrade answered ${res.statusCode}`)));
      ws.once("error", reject);
    });
    return s;
  }
}

/** An open WebSocket: every frame judged as it arrives, the events kept for the session to wait on. */
export class Socket {
  /** Stream: each event of each frame; watch: each frame. Raw, as sent. */
  readonly events: Raw[] = [];
  closed: { code: number; reason: string } | null = null;

  constructor(
    readonly ws: WebSocket,
    readonly where: string,
    kind: "stream" | "watch",
    mismatches: Mismatch[],
  ) {
    ws.on("message", (data) => {
      let frame: Raw;
      try {
        frame = JSON.parse(String(data));
      } catch {
        record(mismatches, where, `a frame that is not JSON: ${String(data).slice(0, 120)}`);
        return;
      }
      if (kind === "watch") {
        const parsed = CODER_SOCKETS.watch.frame.safeParse(frame);
        if (!parsed.success) {
          const label = `${where} frame kind=${frame?.kind ?? "?"}`;
          for (const line of describeIssues(parsed.error, frame)) record(mismatches, label, line);
        }
        this.events.push(frame);
        return;
      }
      if (!Array.isArray(frame)) {
        // Go's StreamChat reads every frame into []ChatStreamEvent: an object fails it.
        record(mismatches, where, `a frame that is not an array: ${JSON.stringify(frame).slice(0, 160)}`);
        this.events.push(frame);
        return;
      }
      for (const event of frame) {
        const parsed = ChatStreamEvent.safeParse(event);
        if (!parsed.success) {
          const label = `${where} event type=${event?.type ?? "?"}`;
          for (const line of describeIssues(parsed.error, event)) record(mismatches, label, line);
        }
        this.events.push(event);
      }
    });
    ws.on("close", (code, reason) => {
      this.closed = { code, reason: reason.toString() };
    });
  }

  /** Waits for an event (from index `from`) that `match` accepts; its index. */
  async until(match: (e: Raw) => boolean, timeoutMs = 20_000, from = 0): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const at = this.events.findIndex((e, i) => i >= from && match(e));
      if (at >= 0) return at;
      if (Date.now() > deadline) {
        const seen = this.events.slice(from).map((e) => e?.type ?? e?.kind ?? "?");
        throw new Error(`${this.where}: no matching event within ${timeoutMs} ms; saw ${JSON.stringify(seen).slice(0, 600)}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): void {
    this.ws.terminate();
  }
}
