/**
 * The chat list watch, `GET /chats/watch` (docs/api.md "Chat list watch"), over the real route and
 * watch object: a user's watch hears of their own chats' creation, renames, status, plan mode,
 * archiving and unarchiving, a chat waiting on its client's tools (action_required with the
 * pending calls), never of another user's; a change nobody notified (a write straight
 * to the database) and a chat deleted underneath arrive by the catch-up poll within
 * CHAT_WATCH_POLL_MS (2 s in this project); a revoked key's socket closes with 4401; the socket
 * quota, the cookie's Origin check and the route's refusals.
 */
import { SELF } from "cloudflare:test";
import { eq, sql } from "drizzle-orm";
import { describe, it } from "vitest";
import { chatMessages, chats } from "../../src/db/schema/chats";
import { createApiKey, TOKEN_LOGIN_TYPE } from "../../src/accounts/api-keys";
import type { ChatWatchEvent } from "../../src/watch/watch-events";
import { api, BASE, createTestUser, expectJson, type TestUser, withDb } from "./support/accounts";

/** Within the poll (2 s here) on a loaded machine. */
const BOUND = { timeout: 10_000, interval: 100 };

interface Watcher {
  events: ChatWatchEvent[];
  closed: { code: number; reason: string } | null;
  socket: WebSocket;
  about(chatId: string): ChatWatchEvent[];
}

async function watch(token: string): Promise<Watcher> {
  const res = await SELF.fetch(`${BASE}/chats/watch?coder_session_token=${token}`, { headers: { Upgrade: "websocket" } });
  const socket = res.webSocket;
  if (!socket) throw new Error(`upgrade refused: ${res.status} ${await res.text()}`);
  const watcher: Watcher = {
    events: [],
    closed: null,
    socket,
    about: (id) => watcher.events.filter((e) => e.chat.id === id),
  };
  socket.accept();
  socket.addEventListener("message", (event) => {
    watcher.events.push(JSON.parse(String(event.data)) as ChatWatchEvent);
  });
  socket.addEventListener("close", (event) => {
    watcher.closed = { code: event.code, reason: event.reason };
  });
  return watcher;
}

async function newChat(user: TestUser, content: unknown[] = []): Promise<string> {
  return (await expectJson<{ id: string }>(await api("/chats", { token: user.token, body: { content } }), 201)).id;
}

async function patch(user: TestUser, chatId: string, body: Record<string, unknown>): Promise<void> {
  const res = await api(`/chats/${chatId}`, { token: user.token, method: "PATCH", body });
  if (res.status >= 300) throw new Error(`PATCH ${res.status}: ${await res.text()}`);
}

describe.concurrent("the chat list watch", () => {
  it("sends the watcher's own chats' changes as Coder's kinds, each with the whole chat, and nothing of another user's", async ({
    expect,
  }) => {
    const [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
    const w = await watch(alice.token);
    const chatId = await newChat(alice);
    await expect.poll(() => w.about(chatId).map((e) => e.kind), BOUND).toEqual(["created"]);
    expect(w.about(chatId)[0]?.chat).toMatchObject({ id: chatId, owner_id: alice.id, archived: false, title: "New Chat" });

    // Bob's chat and Bob's changes never reach Alice.
    const bobs = await newChat(bob);
    await patch(bob, bobs, { title: "Bob's secret" });

    await patch(alice, chatId, { title: "Renamed" });
    await expect.poll(() => w.about(chatId).at(-1), BOUND).toMatchObject({ kind: "title_change", chat: { title: "Renamed" } });
    await patch(alice, chatId, { plan_mode: "plan" });
    await expect.poll(() => w.about(chatId).at(-1), BOUND).toMatchObject({ kind: "status_change", chat: { plan_mode: "plan" } });
    await patch(alice, chatId, { archived: true });
    await expect.poll(() => w.about(chatId).at(-1), BOUND).toMatchObject({ kind: "deleted", chat: { archived: true } });
    await patch(alice, chatId, { archived: false });
    await expect.poll(() => w.about(chatId).at(-1), BOUND).toMatchObject({ kind: "created", chat: { archived: false } });
    expect(w.about(chatId).map((e) => e.kind)).toEqual(["created", "title_change", "status_change", "deleted", "created"]);

    // By now Bob's changes would have arrived (each was committed before Alice's last).
    expect(w.about(bobs)).toEqual([]);
    expect(w.events.every((e) => e.chat.owner_id === alice.id)).toBe(true);
    w.socket.close(1000);
  });

  it("sends a status change: a chat created with a prompt, then interrupted", async ({ expect }) => {
    const user = await createTestUser();
    const w = await watch(user.token);
    const chatId = await newChat(user, [{ type: "text", text: "hello" }]);
    await expect.poll(() => w.about(chatId)[0]?.kind, BOUND).toBe("created");
    const before = w.about(chatId).at(-1)?.chat.status;
    const res = await api(`/chats/${chatId}/interrupt`, { token: user.token, method: "POST" });
    expect(res.status).toBeLessThan(300);
    await expect.poll(() => w.about(chatId).find((e) => e.kind === "status_change" && e.chat.status !== before), BOUND).toBeDefined();
    w.socket.close(1000);
  });

  it("heals a lost notification by the poll: a title written straight to the database arrives within the poll", async ({ expect }) => {
    const user = await createTestUser();
    const w = await watch(user.token);
    const chatId = await newChat(user);
    await expect.poll(() => w.about(chatId).length, BOUND).toBe(1);
    // Nothing notifies the watch object of this write: only its poll can find it.
    const written = Date.now();
    await withDb((db) =>
      db.update(chats).set({ title: "Written behind its back", titleUpdatedAt: sql`now()` }).where(eq(chats.id, chatId)),
    );
    await expect
      .poll(() => w.about(chatId).at(-1), BOUND)
      .toMatchObject({ kind: "title_change", chat: { title: "Written behind its back" } });
    expect(Date.now() - written).toBeLessThan(2_000 + 5_000);
    w.socket.close(1000);
  });

  it("sends a chat that waits on its client's tools as action_required with the pending calls, args as JSON strings", async ({
    expect,
  }) => {
    const user = await createTestUser();
    const w = await watch(user.token);
    const chatId = await newChat(user);
    await expect.poll(() => w.about(chatId).length, BOUND).toBe(1);
    // A turn that stopped on two calls: one of the chat's own client tool, one of a server tool
    // (answered on the server, so not the client's to run). Written straight to the database, so
    // the poll brings it, through the same classification and read as a notification.
    await withDb(async (db) => {
      await db.insert(chatMessages).values({
        chatId,
        role: "assistant",
        content: [
          { type: "tool-call", tool_call_id: "call_client", tool_name: "client_lookup", args: { q: "word" } },
          { type: "tool-call", tool_call_id: "call_server", tool_name: "read_file", args: { path: "/x" } },
        ] as never,
      });
      await db
        .update(chats)
        .set({
          status: "requires_action",
          unsafeDynamicTools: [{ name: "client_lookup", input_schema: { type: "object" } }],
          updatedAt: sql`now()`,
        })
        .where(eq(chats.id, chatId));
    });
    await expect.poll(() => w.about(chatId).at(-1)?.kind, BOUND).toBe("action_required");
    const event = w.about(chatId).at(-1);
    expect(event?.chat.status).toBe("requires_action");
    expect(event?.tool_calls).toEqual([{ tool_call_id: "call_client", tool_name: "client_lookup", args: '{"q":"word"}' }]);
    // Coder sends this kind instead of a status_change; the other events carry no tool_calls.
    expect(w.about(chatId).map((e) => e.kind)).toEqual(["created", "action_required"]);
    expect(w.about(chatId)[0]).not.toHaveProperty("tool_calls");
    w.socket.close(1000);
  });

  it("tells the watcher of a chat deleted underneath it (deleted, gone), by the poll", async ({ expect }) => {
    const user = await createTestUser();
    const w = await watch(user.token);
    const chatId = await newChat(user);
    await expect.poll(() => w.about(chatId).length, BOUND).toBe(1);
    await withDb((db) => db.delete(chats).where(eq(chats.id, chatId)));
    await expect.poll(() => w.about(chatId).at(-1)?.kind, BOUND).toBe("deleted");
    expect(w.about(chatId).at(-1)).toMatchObject({ gone: true, chat: { id: chatId, archived: false } });
    w.socket.close(1000);
  });

  it("closes a watch whose key was revoked with 4401, and keeps the user's other watch open", async ({ expect }) => {
    const user = await createTestUser();
    const doomed = await withDb((db) =>
      createApiKey(db, {
        userId: user.id,
        tokenName: `w-${crypto.randomUUID()}`,
        loginType: TOKEN_LOGIN_TYPE,
        expiresAt: new Date(Date.now() + 3600_000),
      }),
    );
    const revoked = await watch(doomed.token);
    const kept = await watch(user.token);
    expect((await api(`/users/me/keys/${doomed.key.id}`, { token: user.token, method: "DELETE" })).status).toBe(204);
    await expect.poll(() => revoked.closed, BOUND).toEqual({ code: 4401, reason: "the token or session was revoked" });
    expect(kept.closed).toBeNull();
    // The kept one still hears of changes.
    const chatId = await newChat(user);
    await expect.poll(() => kept.about(chatId).length, BOUND).toBe(1);
    expect(revoked.about(chatId)).toEqual([]);
    kept.socket.close(1000);
  });

  it("refuses a watch beyond the user's socket quota, and frees a place when one closes", async ({ expect }) => {
    const user = await createTestUser();
    const open = await Promise.all(Array.from({ length: 10 }, () => watch(user.token)));
    const refused = await SELF.fetch(`${BASE}/chats/watch?coder_session_token=${user.token}`, { headers: { Upgrade: "websocket" } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: "quota_exceeded" });
    open[0]?.socket.close(1000);
    await expect
      .poll(async () => {
        const res = await SELF.fetch(`${BASE}/chats/watch?coder_session_token=${user.token}`, { headers: { Upgrade: "websocket" } });
        res.webSocket?.accept();
        res.webSocket?.close(1000);
        return res.status;
      }, BOUND)
      .toBe(101);
    for (const w of open.slice(1)) w.socket.close(1000);
  });

  it("takes the session cookie from the service's own page only (cross-site WebSocket hijacking)", async ({ expect }) => {
    const user = await createTestUser();
    const upgrade = (origin: string) =>
      SELF.fetch(`${BASE}/chats/watch`, { headers: { Upgrade: "websocket", Cookie: `coder_session_token=${user.token}`, Origin: origin } });
    const foreign = await upgrade("https://evil.example");
    expect(foreign.webSocket).toBeNull();
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ code: "origin_not_allowed" });
    const own = await upgrade(new URL(BASE).origin);
    expect(own.status).toBe(101);
    own.webSocket?.accept();
    own.webSocket?.close(1000);
  });

  it("answers 401 without a credential, 426 to a plain request", async ({ expect }) => {
    const user = await createTestUser();
    const anonymous = await SELF.fetch(`${BASE}/chats/watch`, { headers: { Upgrade: "websocket" } });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: "unauthorized" });
    const plain = await api("/chats/watch", { token: user.token });
    expect(plain.status).toBe(426);
    expect(await plain.json()).toMatchObject({ code: "upgrade_required" });
  });
});
