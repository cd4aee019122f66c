/**
 * A chat's routes are authenticated by the chat's object (docs/hot-path.md): the Worker takes the
 * token and checks its form, the object verifies it on its warm pool and trusts what it read for
 * CHAT_AUTH_CACHE_MS (2 s in this project). Expiry takes effect at once; a deleted key or a suspended
 * user within that bound. Each case goes through the real routes, both WebSockets included.
 * Creating a chat is authenticated the same way, by the new chat's object, which also chooses and
 * checks the chat's organization there.
 */
import { SELF } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createApiKey, getApiKey, TOKEN_LOGIN_TYPE } from "../../src/accounts/api-keys";
import { apiKeys, organizationMembers, users } from "../../src/db/schema/auth";
import { api, BASE, createOrg, createTestUser, expectJson, joinOrg, type TestUser, withDb } from "./support/accounts";

/** The worker project's CHAT_AUTH_CACHE_MS (vitest.config.ts), plus a margin for a loaded machine. */
const AUTH_BOUND_MS = 2_000;
const PAST_THE_BOUND_MS = AUTH_BOUND_MS + 300;

interface ErrorJson {
  code: string;
  detail?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function newChat(user: TestUser): Promise<string> {
  return (await expectJson<{ id: string }>(await api("/chats", { token: user.token, body: { content: [] } }), 201)).id;
}

async function anotherKey(user: TestUser, expiresAt = new Date(Date.now() + 3600_000)): Promise<{ id: string; token: string }> {
  return withDb(async (db) => {
    const { key, token } = await createApiKey(db, {
      userId: user.id,
      tokenName: `k-${crypto.randomUUID()}`,
      loginType: TOKEN_LOGIN_TYPE,
      expiresAt,
    });
    return { id: key.id, token };
  });
}

/** Every kind of chat route the object authenticates: a read, the history, a send, and both sockets. */
async function statuses(chatId: string, token: string): Promise<Record<string, number>> {
  const upgrade = async (suffix: string) => {
    const res = await SELF.fetch(`${BASE}/chats/${chatId}/${suffix}?coder_session_token=${token}`, { headers: { Upgrade: "websocket" } });
    if (res.webSocket) {
      res.webSocket.accept();
      res.webSocket.close(1000);
    }
    await res.body?.cancel();
    return res.status;
  };
  const status = async (res: Response) => {
    await res.body?.cancel();
    return res.status;
  };
  return {
    read: await status(await api(`/chats/${chatId}`, { token })),
    messages: await status(await api(`/chats/${chatId}/messages`, { token })),
    send: await status(
      await api(`/chats/${chatId}/messages`, { token, body: { content: [{ type: "text", text: "hi" }], busy_behavior: "queue" } }),
    ),
    stream: await upgrade("stream"),
    parts: await upgrade("stream/parts"),
  };
}

const all = (status: number) => ({ read: status, messages: status, send: status, stream: status, parts: status });
const allowed = { ...all(200), stream: 101, parts: 101 };

async function messageCount(chatId: string): Promise<number> {
  return withDb(async (db) => {
    const { rows } = await db.$client.query("SELECT count(*)::int AS n FROM chat_messages WHERE chat_id = $1", [chatId]);
    return Number(rows[0]?.n);
  });
}

describe("a chat's routes, authenticated by its object", () => {
  it("a key presented for the first time authenticates (nothing cached), and records its use", async () => {
    const owner = await createTestUser();
    const chatId = await newChat(owner);
    const fresh = await anotherKey(owner);
    expect(await statuses(chatId, fresh.token)).toEqual(allowed);
    // Recorded after the answer, in the background.
    for (let i = 0; i < 50 && !(await withDb((db) => getApiKey(db, fresh.id)))?.lastUsedAt; i++) await sleep(100);
    expect((await withDb((db) => getApiKey(db, fresh.id)))?.lastUsedAt).toBeInstanceOf(Date);
  });

  it("an unknown key, a wrong secret and a malformed token are 401, and write nothing", async () => {
    const owner = await createTestUser();
    const chatId = await newChat(owner);
    const [id] = owner.token.split("-");
    for (const token of ["abcdefghij-abcdefghijabcdefghijabcdefghij", `${id}-${"x".repeat(32)}`, "not-a-token"]) {
      expect(await statuses(chatId, token), token).toEqual(all(401));
    }
    const body = await expectJson<ErrorJson>(await api(`/chats/${chatId}`, { token: `${id}-${"x".repeat(32)}` }), 401);
    expect(body).toMatchObject({ code: "unauthorized", detail: "The session token is invalid." });
    expect(await messageCount(chatId)).toBe(0);
  });

  it("another user's chat answers 404 on every route, as a missing one does", async () => {
    const owner = await createTestUser();
    const other = await createTestUser();
    const chatId = await newChat(owner);
    expect(await statuses(chatId, other.token)).toEqual(all(404));
    expect(await statuses(crypto.randomUUID(), other.token)).toEqual(all(404));
    expect(await messageCount(chatId)).toBe(0);
  });

  it("a key that expires while the object trusts it is refused at once", async () => {
    const owner = await createTestUser();
    const chatId = await newChat(owner);
    const soon = await anotherKey(owner, new Date(Date.now() + 1_500));
    expect((await api(`/chats/${chatId}`, { token: soon.token })).status).toBe(200);
    await sleep(1_600);
    // Well inside the trust window of the read above: expiry is checked on every request.
    const body = await expectJson<ErrorJson>(await api(`/chats/${chatId}`, { token: soon.token }), 401);
    expect(body.detail).toMatch(/expired/);
    expect(await statuses(chatId, soon.token)).toEqual(all(401));
  });

  it("a deleted key stops authenticating within the bound, on every route", async () => {
    const owner = await createTestUser();
    const chatId = await newChat(owner);
    const key = await anotherKey(owner);
    expect(await statuses(chatId, key.token)).toEqual(allowed);
    const before = await messageCount(chatId);
    await withDb((db) => db.delete(apiKeys).where(and(eq(apiKeys.id, key.id), eq(apiKeys.userId, owner.id))));
    await sleep(PAST_THE_BOUND_MS);
    expect(await statuses(chatId, key.token)).toEqual(all(401));
    expect(await messageCount(chatId)).toBe(before);
    // The owner's other key is untouched.
    expect((await api(`/chats/${chatId}`, { token: owner.token })).status).toBe(200);
  });

  it("a suspended user stops authenticating within the bound, on every route", async () => {
    const owner = await createTestUser();
    const chatId = await newChat(owner);
    expect(await statuses(chatId, owner.token)).toEqual(allowed);
    const before = await messageCount(chatId);
    await withDb((db) => db.update(users).set({ suspended: true }).where(eq(users.id, owner.id)));
    await sleep(PAST_THE_BOUND_MS);
    expect(await statuses(chatId, owner.token)).toEqual(all(401));
    const body = await expectJson<ErrorJson>(await api(`/chats/${chatId}/messages`, { token: owner.token }), 401);
    expect(body.detail).toMatch(/suspended/);
    expect(await messageCount(chatId)).toBe(before);
  });
});

async function chatsOwnedBy(userId: string): Promise<number> {
  return withDb(async (db) => {
    const { rows } = await db.$client.query("SELECT count(*)::int AS n FROM chats WHERE owner_id = $1", [userId]);
    return Number(rows[0]?.n);
  });
}

const create = (token: string, body: Record<string, unknown> = {}) => api("/chats", { token, body: { content: [], ...body } });

describe("POST /chats, authenticated by the new chat's object", () => {
  it("refuses a bad token, an expired key and a suspended user with 401, and creates nothing", async () => {
    const owner = await createTestUser();
    const [id] = owner.token.split("-");
    expect((await create(`${id}-${"x".repeat(32)}`)).status).toBe(401);
    expect((await create("not-a-token")).status).toBe(401);
    const expired = await anotherKey(owner, new Date(Date.now() - 1_000));
    expect((await expectJson<ErrorJson>(await create(expired.token), 401)).detail).toMatch(/expired/);
    await withDb((db) => db.update(users).set({ suspended: true }).where(eq(users.id, owner.id)));
    // A new chat's object has nothing cached: the suspension holds at once.
    expect((await expectJson<ErrorJson>(await create(owner.token), 401)).detail).toMatch(/suspended/);
    expect(await chatsOwnedBy(owner.id)).toBe(0);
  });

  it("without organization_id, puts the chat in the caller's first organization (the default one first: organization-reads.test.ts)", async () => {
    const u = await createTestUser();
    await joinOrg(u.id, await createOrg(), "admin");
    expect((await expectJson<{ organization_id: string }>(await create(u.token), 201)).organization_id).toBe(u.organizationId);
  });

  it("checks a named organization: the caller's own, 404 for another's or none, any for the site owner", async () => {
    const u = await createTestUser();
    const other = await createOrg();
    expect(
      (await expectJson<{ organization_id: string }>(await create(u.token, { organization_id: u.organizationId }), 201)).organization_id,
    ).toBe(u.organizationId);
    for (const organization_id of [other, crypto.randomUUID()]) {
      const body = await expectJson<ErrorJson>(await create(u.token, { organization_id }), 404);
      expect(body).toMatchObject({ code: "not_found", detail: "Organization not found." });
    }
    expect(await chatsOwnedBy(u.id)).toBe(1);
    const siteOwner = await createTestUser({ siteOwner: true });
    expect(
      (await expectJson<{ organization_id: string }>(await create(siteOwner.token, { organization_id: other }), 201)).organization_id,
    ).toBe(other);
  });

  it("answers 400 on organization_id to a caller who belongs to no organization", async () => {
    const u = await createTestUser();
    await withDb((db) => db.delete(organizationMembers).where(eq(organizationMembers.userId, u.id)));
    const body = await expectJson<{ code: string; validations: { field: string; detail: string }[] }>(await create(u.token), 400);
    expect(body.code).toBe("validation_failed");
    expect(body.validations).toEqual([{ field: "organization_id", detail: "you belong to no organization" }]);
    expect(await chatsOwnedBy(u.id)).toBe(0);
  });
});
