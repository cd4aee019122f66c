/**
 * Sockets follow their credentials (docs/accounts.md "Sockets"): an open stream or parts socket
 * closes with 4401, and a reason that says why, within CHAT_AUTH_CACHE_MS (2 s in this project)
 * after its key is revoked or expires, its user is suspended or leaves the chat's organization;
 * a socket whose key still holds stays open. Over the real routes, hibernation API included.
 */
import { SELF } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, it } from "vitest";
import { createApiKey, TOKEN_LOGIN_TYPE } from "../../src/accounts/api-keys";
import { organizationMembers, users } from "../../src/db/schema/auth";
import { api, BASE, createTestUser, expectJson, type TestUser, withDb } from "./support/accounts";

/** The check runs every CHAT_AUTH_CACHE_MS (2 s here): a close within this bound, on a loaded machine. */
const BOUND = { timeout: 8_000, interval: 100 };

interface Watched {
  closed: { code: number; reason: string } | null;
  socket: WebSocket;
}

async function newChat(user: TestUser): Promise<string> {
  return (await expectJson<{ id: string }>(await api("/chats", { token: user.token, body: { content: [] } }), 201)).id;
}

async function open(chatId: string, token: string, path: "stream" | "stream/parts" = "stream"): Promise<Watched> {
  const res = await SELF.fetch(`${BASE}/chats/${chatId}/${path}?coder_session_token=${token}`, { headers: { Upgrade: "websocket" } });
  const socket = res.webSocket;
  if (!socket) throw new Error(`upgrade refused: ${res.status} ${await res.text()}`);
  const watched: Watched = { closed: null, socket };
  socket.accept();
  socket.addEventListener("close", (event) => {
    watched.closed = { code: event.code, reason: event.reason };
  });
  return watched;
}

async function keyOf(user: TestUser, expiresAt = new Date(Date.now() + 3600_000)) {
  return withDb((db) =>
    createApiKey(db, { userId: user.id, tokenName: `s-${crypto.randomUUID()}`, loginType: TOKEN_LOGIN_TYPE, expiresAt }),
  );
}

describe.concurrent("open sockets and their credentials", () => {
  it("closes the stream and parts sockets of a revoked key with 4401, and leaves another key's open", async ({ expect }) => {
    const user = await createTestUser();
    const chatId = await newChat(user);
    const doomed = await keyOf(user);
    const stream = await open(chatId, doomed.token);
    const parts = await open(chatId, doomed.token, "stream/parts");
    const kept = await open(chatId, user.token);
    expect(await (await api(`/users/me/keys/${doomed.key.id}`, { token: user.token, method: "DELETE" })).status).toBe(204);
    await expect.poll(() => stream.closed, BOUND).toEqual({ code: 4401, reason: "the token or session was revoked" });
    await expect.poll(() => parts.closed, BOUND).toEqual({ code: 4401, reason: "the token or session was revoked" });
    // The other key's socket went through the same checks and stays.
    expect(kept.closed).toBeNull();
    kept.socket.close(1000);
  });

  it("closes a socket whose key expires while it is open", async ({ expect }) => {
    const user = await createTestUser();
    const chatId = await newChat(user);
    const soon = await keyOf(user, new Date(Date.now() + 2_500));
    const stream = await open(chatId, soon.token);
    await expect.poll(() => stream.closed, BOUND).toEqual({ code: 4401, reason: "the token or session expired" });
  });

  it("closes a suspended user's sockets", async ({ expect }) => {
    const user = await createTestUser();
    const chatId = await newChat(user);
    const stream = await open(chatId, user.token);
    await withDb((db) => db.update(users).set({ suspended: true }).where(eq(users.id, user.id)));
    await expect.poll(() => stream.closed, BOUND).toEqual({ code: 4401, reason: "the user is suspended" });
  });

  it("closes the sockets of a user removed from the chat's organization", async ({ expect }) => {
    const user = await createTestUser();
    const chatId = await newChat(user);
    const stream = await open(chatId, user.token);
    await withDb((db) =>
      db
        .delete(organizationMembers)
        .where(and(eq(organizationMembers.userId, user.id), eq(organizationMembers.organizationId, user.organizationId))),
    );
    await expect
      .poll(() => stream.closed, BOUND)
      .toEqual({ code: 4401, reason: "the user is no longer a member of the chat's organization" });
  });
});
