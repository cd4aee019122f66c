/**
 * A lifecycle hook consumer for tests (docs/hooks.md), a plain Node HTTP server: it checks each
 * event's signature, records it, and answers as the test scripted for the event's chat owner.
 * Tests in workerd drive it over HTTP:
 *   POST /_script {owner_id, event, answer}  answer: {status?, body?, raw?, close?, delay_ms?, hold?, endless?}
 *     (`close` drops the connection: the consumer is down for that owner's events; `hold` keeps
 *     each such request waiting until a release lets it answer; `endless` streams a body that
 *     never ends)
 *   POST /_release {owner_id, event, count}  lets the `count` oldest held requests answer
 *   GET  /_events?owner_id=  the events recorded for that owner, oldest first
 *   GET  /_stats?owner_id=[&event=]  that owner's events (of one type, or all) in flight now, the
 *     most in flight at once, and how many arrived; counted as each request arrives and leaves,
 *     so a held request keeps counting until it is released
 * Anything not scripted answers 200 `{}`.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ScriptedAnswer {
  status?: number;
  body?: unknown;
  raw?: string;
  close?: boolean;
  delay_ms?: number;
  hold?: boolean;
  /** Answer `status` with a body that never ends (a JSON string that keeps growing), until the client goes. */
  endless?: boolean;
}

export interface ConsumerStats {
  in_flight: number;
  max_in_flight: number;
  arrived: number;
}

export interface RecordedEvent {
  envelope: { id: string; event: string; sent_at: string; chat: { id: string; owner_id: string }; data: Record<string, unknown> };
  headers: Record<string, string>;
  signature_valid: boolean;
  answered: "ok" | "scripted" | "closed";
}

export interface HookConsumer {
  url: string;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

/** 64 KiB chunks, no Content-Length, until the client closes (or 1 GiB, should it never). */
async function endlessBody(res: ServerResponse, status: number): Promise<void> {
  res.writeHead(status, { "content-type": "application/json" });
  res.write('{"reason":"');
  const chunk = "a".repeat(64 * 1024);
  for (let sent = 0; sent < 1024 ** 3 && !res.destroyed; sent += chunk.length) {
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        res.once("drain", resolve);
        res.once("close", resolve);
      });
    }
  }
  res.end();
}

export async function startHookConsumer(secret: string, port = 0): Promise<HookConsumer> {
  const scripts = new Map<string, ScriptedAnswer>();
  const events = new Map<string, RecordedEvent[]>();
  /** Keyed by owner and by owner/event. */
  const stats = new Map<string, ConsumerStats>();
  const statsOf = (key: string) => {
    const found = stats.get(key) ?? { in_flight: 0, max_in_flight: 0, arrived: 0 };
    stats.set(key, found);
    return found;
  };
  /** Held requests' releases, oldest first, keyed by owner/event. */
  const held = new Map<string, (() => void)[]>();

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => json(res, 500, { error: String(err) }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://consumer");
    if (req.method === "POST" && url.pathname === "/_script") {
      const { owner_id, event, answer } = JSON.parse(await bodyOf(req)) as {
        owner_id: string;
        event: string;
        answer: ScriptedAnswer | null;
      };
      if (answer === null) scripts.delete(`${owner_id}/${event}`);
      else scripts.set(`${owner_id}/${event}`, answer);
      return json(res, 200, {});
    }
    if (req.method === "GET" && url.pathname === "/_events")
      return json(res, 200, events.get(url.searchParams.get("owner_id") ?? "") ?? []);
    if (req.method === "POST" && url.pathname === "/_release") {
      const { owner_id, event, count } = JSON.parse(await bodyOf(req)) as { owner_id: string; event: string; count: number };
      const waiting = held.get(`${owner_id}/${event}`) ?? [];
      const released = waiting.splice(0, count);
      for (const release of released) release();
      return json(res, 200, { released: released.length });
    }
    if (req.method === "GET" && url.pathname === "/_stats") {
      const owner = url.searchParams.get("owner_id") ?? "";
      const event = url.searchParams.get("event");
      return json(res, 200, statsOf(event ? `${owner}/${event}` : owner));
    }
    if (req.method !== "POST" || url.pathname.startsWith("/_")) return json(res, 404, {});

    const raw = await bodyOf(req);
    const envelope = JSON.parse(raw) as RecordedEvent["envelope"];
    const owner = envelope.chat.owner_id;
    const expected = `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`;
    const given = String(req.headers["x-chat-hook-signature"] ?? "");
    const signatureValid = given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    const answer = scripts.get(`${owner}/${envelope.event}`);
    const record: RecordedEvent = {
      envelope,
      headers,
      signature_valid: signatureValid,
      answered: answer ? (answer.close ? "closed" : "scripted") : "ok",
    };
    events.set(owner, [...(events.get(owner) ?? []), record]);

    const counters = [statsOf(owner), statsOf(`${owner}/${envelope.event}`)];
    for (const c of counters) {
      c.arrived++;
      c.in_flight++;
      c.max_in_flight = Math.max(c.max_in_flight, c.in_flight);
    }
    try {
      if (answer?.hold) {
        const key = `${owner}/${envelope.event}`;
        await new Promise<void>((resolve) => held.set(key, [...(held.get(key) ?? []), resolve]));
      }
      if (answer?.delay_ms) await new Promise((r) => setTimeout(r, answer.delay_ms));
      if (answer?.close) {
        req.socket.destroy();
        return;
      }
      if (answer?.endless) {
        await endlessBody(res, answer.status ?? 200);
        return;
      }
      if (answer?.raw !== undefined) {
        res.writeHead(answer.status ?? 200, { "content-type": "application/json" });
        res.end(answer.raw);
        return;
      }
      json(res, answer?.status ?? 200, answer?.body ?? {});
    } finally {
      for (const c of counters) c.in_flight--;
    }
  }

  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise((resolve) => {
        for (const waiting of held.values()) for (const release of waiting.splice(0)) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
