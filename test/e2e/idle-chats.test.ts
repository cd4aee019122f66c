/**
 * Idle chats sleep (docs/stream.md): a chat with open sockets and no activity for
 * CHAT_STREAM_IDLE_POLL_MS (3 s here, with a 0.5 s active poll and credential check) wakes once per
 * idle interval, holds no database connection between wakes, and still keeps both of its bounds:
 * a socket whose key is revoked closes within an idle interval, and a lost notification (a version
 * moved in the database with nobody told) reaches every socket within one. Counted through a
 * database proxy of the test's own, on a `wrangler dev` of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createApiKey, TOKEN_LOGIN_TYPE } from "../../src/accounts/api-keys";
import { startWsProxy, type WsProxy } from "../../scripts/lib/ws-proxy";
import type { WranglerDev } from "../../scripts/lib/wrangler-dev";
import { createChat, type Deployment, deployment } from "./support/deployment";

const ACTIVE_MS = 500;
const IDLE_MS = 3_000;
/** How long the test watches the idle chat. */
const WINDOW_MS = 9_000;
/** A bound on a loaded machine: one idle interval, plus the wake's own work and the runtime's lag. */
const IDLE_BOUND = { timeout: IDLE_MS + 4_000, interval: 100 };

let d: Deployment;
let proxy: WsProxy;
let dev: WranglerDev;

beforeAll(async () => {
  d = await deployment("idle", {
    CHAT_STREAM_SYNC_POLL_MS: String(ACTIVE_MS),
    CHAT_AUTH_CACHE_MS: String(ACTIVE_MS),
    CHAT_STREAM_IDLE_POLL_MS: String(IDLE_MS),
    // Connections the active chat released linger this long (10 s by default) before the idle
    // cadence's prompt closing takes over; short here so the window sees the idle chat alone.
    CHAT_DB_IDLE_CONNECTION_MS: "1000",
  });
  const db = new URL(d.own.url);
  proxy = await startWsProxy({ allow: [`${db.hostname}:${db.port}`, `localhost:${db.port}`] });
  dev = await d.start({ wsProxy: proxy.hostPort });
}, 120_000);

afterAll(async () => {
  await d?.close();
  await proxy?.close();
});

interface Watched {
  ws: WebSocket;
  queueUpdates: number;
  closed: { code: number; reason: string } | null;
}

async function openStream(chatId: string, token: string): Promise<Watched> {
  const ws = new WebSocket(
    `${dev.url.replace(/^http/, "ws")}/api/v2/chats/${chatId}/stream?coder_session_token=${encodeURIComponent(token)}`,
  );
  const watched: Watched = { ws, queueUpdates: 0, closed: null };
  ws.on("message", (data) => {
    if (String(data).includes('"queue_update"')) watched.queueUpdates++;
  });
  ws.on("close", (code, reason) => {
    watched.closed = { code, reason: reason.toString() };
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return watched;
}

async function get<T>(path: string): Promise<T> {
  const res = await fetch(`${dev.url}/api/v2${path}`, { headers: { authorization: `Bearer ${d.token}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("an idle chat with open sockets", () => {
  it("wakes once per idle interval without holding a connection, and still closes a revoked socket and heals a lost notification", async () => {
    const chatId = await createChat(dev, d.token, "hello");
    await expect.poll(async () => (await get<{ status: string }>(`/chats/${chatId}`)).status, { timeout: 30_000 }).toBe("waiting");
    const me = await get<{ id: string }>("/users/me");
    const doomed = await createApiKey(d.own.db, {
      userId: me.id,
      tokenName: "idle-doomed",
      loginType: TOKEN_LOGIN_TYPE,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    const kept = await Promise.all([openStream(chatId, d.token), openStream(chatId, d.token)]);
    const revoked = await openStream(chatId, doomed.token);

    // The sockets' opening was the chat's last sign of life: past the idle interval it is idle,
    // and the connections of its active time have closed.
    await sleep(IDLE_MS + 2_000);
    proxy.resetCounters();
    await sleep(WINDOW_MS);
    const idle = proxy.counters();
    // The active cadence would be 18 polls and 18 checks in the window, on a connection held
    // throughout; idle, one wake per 3 s makes both reads on one connection and closes it.
    const wakes = Math.ceil(WINDOW_MS / IDLE_MS) + 1;
    expect(idle.connections, JSON.stringify(idle)).toBeLessThanOrEqual(wakes);
    expect(idle.roundTrips, JSON.stringify(idle)).toBeLessThan(WINDOW_MS / ACTIVE_MS);
    expect(idle.connectionMs, JSON.stringify(idle)).toBeLessThan(WINDOW_MS / 4);
    expect([...kept, revoked].every((s) => s.closed === null)).toBe(true);

    // Revoked while the chat is idle: the socket closes on the next idle wake.
    await d.own.pool.query("DELETE FROM api_keys WHERE id = $1", [doomed.key.id]);
    // The server's close frame arrives within the bound (the socket leaves OPEN). Local workerd may
    // leave the TCP connection open after the closing handshake (ws then waits 30 s for it), so the
    // client ends it and its close event carries the code and reason the frame brought.
    await expect.poll(() => revoked.ws.readyState, IDLE_BOUND).not.toBe(WebSocket.OPEN);
    revoked.ws.terminate();
    await expect.poll(() => revoked.closed).toEqual({ code: 4401, reason: "the token or session was revoked" });
    expect(kept.every((s) => s.closed === null)).toBe(true);

    // A lost notification: the queue's version moves in the database and nobody is told.
    for (const s of kept) s.queueUpdates = 0;
    await d.own.pool.query("UPDATE chats SET queue_version = queue_version + 1, snapshot_version = snapshot_version + 1 WHERE id = $1", [
      chatId,
    ]);
    await expect.poll(() => kept.every((s) => s.queueUpdates > 0), IDLE_BOUND).toBe(true);
    for (const s of kept) s.ws.close();
  }, 90_000);
});
