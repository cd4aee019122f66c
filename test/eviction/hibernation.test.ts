/**
 * A chat object evicted from its isolate while clients watch it: with their sockets hibernated
 * (they stay open, and the next instance rebuilds each loop from the cursors in its attachment), or
 * closed (the clients reconnect with their resume cursors). Either way every client ends up with
 * every message and part once.
 *
 * The eviction is workerd's own (`evictDurableObject`, the vitest plugin's hook into it). It never
 * aborts a live request: asked while a turn runs, it waits until the object is idle (no request,
 * no pending I/O such as an open database connection), for at most 30 s. So the object evicted
 * here is the one that ran the turn, once the turn has ended and its idle connections have closed
 * (CHAT_DB_IDLE_CONNECTION_MS, short in this project). A runtime that dies mid-turn is the e2e
 * suite's stream-restart test.
 *
 * Project "eviction" (vitest.config.ts): the runner's timers, a sync poll of a minute so an idle
 * object has nothing to do, and idle database connections closed after 300 ms.
 */
import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import { applyEvent, type ChatState, initialChatState, resumeCursors } from "../../client/src/chat-state";
import type { ChatStreamEvent } from "../../src/wire/stream-events";
import { chatObjectStub } from "../../src/placement/chat-object-stub";
import { api, expectJson, type TestUser } from "../worker/support/accounts";
import { openStream, type StreamClient, type StreamEvent } from "../runner/support/stream-client";
import { modelUsers, releaseChatsOf, userWithModel } from "../runner/support/model-user";

afterAll(() => releaseChatsOf(modelUsers), 60_000);

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");
const isStatus = (status: string) => (e: StreamEvent) => e.type === "status" && e.status?.status === status;

async function createChat(u: TestUser, text: string): Promise<string> {
  return (await expectJson<{ id: string }>(await api("/chats", { token: u.token, body: { content: [{ type: "text", text }] } }), 201)).id;
}

async function send(u: TestUser, chatId: string, text: string): Promise<void> {
  await expectJson(await api(`/chats/${chatId}/messages`, { token: u.token, body: { content: [{ type: "text", text }] } }), 200);
}

/** The committed history as the API lists it: ids, roles and texts. */
async function history(u: TestUser, chatId: string): Promise<{ id: string; role: string; text: string }[]> {
  const page = await expectJson<{ messages: { id: string; role: string; content: { type: string; text?: string }[] }[] }>(
    await api(`/chats/${chatId}/messages`, { token: u.token }),
    200,
  );
  return page.messages.map((m) => ({ id: m.id, role: m.role, text: m.content.map((c) => c.text ?? "").join("") }));
}

/** A mark on the object's instance: gone after an eviction, since the next request builds a new one. */
async function markInstance(chatId: string): Promise<void> {
  await runInDurableObject(stub(chatId), (instance: object) => {
    (instance as { evictionMark?: true }).evictionMark = true;
  });
}

async function instanceIsMarked(chatId: string): Promise<boolean> {
  return runInDurableObject(stub(chatId), (instance: object) => (instance as { evictionMark?: true }).evictionMark === true);
}

const stub = (chatId: string) => chatObjectStub(env, chatId) as unknown as DurableObjectStub;

/**
 * What a client learned from its events, checked as it goes: no message revision and no part seq
 * comes twice, and the parts of an episode come in order from 1.
 */
function ledger() {
  const revisions = new Set<string>();
  const lastSeq = new Map<string, number>();
  return {
    take(events: readonly StreamEvent[]): void {
      for (const e of events) {
        if (e.type === "message") {
          const key = `${e.message!.id}@${e.message!.revision}`;
          expect(revisions.has(key), `message ${key} sent twice`).toBe(false);
          revisions.add(key);
        }
        if (e.type === "message_part") {
          const p = e.message_part!;
          const episode = `${p.history_version}:${p.generation_attempt}`;
          expect(p.seq, `part ${episode}#${p.seq}`).toBe((lastSeq.get(episode) ?? 0) + 1);
          lastSeq.set(episode, p.seq);
        }
      }
    },
  };
}

describe("a chat object evicted while clients watch", () => {
  it("hibernates the sockets of a chat evicted mid-turn: the turn ends first, then the next instance streams the next turn to the same sockets", async () => {
    const u = await userWithModel();
    const first = words(40, "a");
    const id = await createChat(u, `/slow 50 ${first}`);
    const clients = [await openStream(u, id), await openStream(u, id)];
    await clients[0]!.until((e) => e.type === "message_part" && e.message_part!.seq >= 3);
    await markInstance(id);

    // Asked mid-turn; workerd waits for the turn and the idle connections to end.
    await evictDurableObject(stub(id));
    for (const c of clients) {
      expect(c.closed).toBeNull();
      expect(c.events.some(isStatus("waiting"))).toBe(true);
    }
    expect(await instanceIsMarked(id)).toBe(false);

    const second = words(30, "b");
    const before = clients.map((c) => c.events.length);
    await send(u, id, `/slow 10 ${second}`);
    for (const [i, c] of clients.entries()) {
      const running = await c.until(isStatus("running"), 20_000, before[i]);
      await c.until(isStatus("waiting"), 20_000, running);
    }

    const committed = await history(u, id);
    expect(committed.filter((m) => m.role === "assistant").map((m) => m.text)).toEqual([first, second]);
    for (const c of clients) {
      ledger().take(c.events);
      const state = c.events.reduce<ChatState>((s, e) => applyEvent(s, e as ChatStreamEvent), initialChatState(id));
      expect(state.messages.map((m) => m.id)).toEqual(committed.map((m) => m.id));
      expect(c.closed).toBeNull();
      c.ws.close();
    }
  }, 90_000);

  it("closes the sockets of a chat evicted with webSockets 'close': the clients reconnect with their cursors and miss nothing, see nothing twice", async () => {
    const u = await userWithModel();
    const id = await createChat(u, `/slow 10 ${words(20, "c")}`);
    let client = await openStream(u, id);
    await client.until(isStatus("waiting"));
    const seen = ledger();
    let state = initialChatState(id);
    const absorb = (c: StreamClient) => {
      seen.take(c.events);
      state = c.events.reduce<ChatState>((s, e) => applyEvent(s, e as ChatStreamEvent), state);
    };

    await send(u, id, `/slow 50 ${words(40, "d")}`);
    await client.until((e) => e.type === "message_part" && e.message_part!.seq >= 3);
    await evictDurableObject(stub(id), { webSockets: "close" });
    await expect.poll(() => client.closed, { timeout: 10_000 }).not.toBeNull();
    absorb(client);

    // Reconnect from the cursors (the client holds everything, so the bootstrap has nothing to
    // send, not even the status), then one more turn on the new socket.
    expect(state.status).toBe("waiting");
    const query = Object.entries(resumeCursors(state))
      .map(([k, v]) => `&${k}=${encodeURIComponent(String(v))}`)
      .join("");
    client = await openStream(u, id, query);
    const third = words(25, "e");
    const before = client.events.length;
    await send(u, id, `/slow 10 ${third}`);
    const running = await client.until(isStatus("running"), 20_000, before);
    await client.until(isStatus("waiting"), 20_000, running);
    absorb(client);
    client.ws.close();

    const committed = await history(u, id);
    expect(committed.filter((m) => m.role === "assistant").at(-1)!.text).toBe(third);
    expect(state.messages.map((m) => m.id)).toEqual(committed.map((m) => m.id));
    expect(state.messages.map((m) => m.content.map((c) => ("text" in c ? c.text : "")).join(""))).toEqual(committed.map((m) => m.text));
  }, 90_000);
});
