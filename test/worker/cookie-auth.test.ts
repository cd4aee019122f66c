/**
 * The session cookie on the JSON routes (docs/accounts.md "Cross-site requests"), over the real
 * routes: those the Worker authenticates and those it forwards to the chat's object. A read works
 * from anywhere and is never shared with another origin; a change works only from a page of the
 * service's own origin (its Origin, or its Referer when there is no Origin), and a refused change
 * writes nothing. A token in a header is no browser's ambient credential and is never checked.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, BASE, createTestUser, expectJson, type TestUser, withDb } from "./support/accounts";

const OWN = new URL(BASE).origin;
const EVIL = "https://evil.example";
const text = (t: string) => [{ type: "text", text: t }];

/** Where the request says it comes from: Origin, Referer, both or neither. */
interface Page {
  origin?: string;
  referer?: string;
}

/** A request that presents only the session cookie, as a browser would from `page`. */
function withCookie(token: string, path: string, init: { method?: string; body?: unknown } & Page = {}): Promise<Response> {
  const headers: Record<string, string> = { Cookie: `theme=dark; coder_session_token=${token}` };
  if (init.origin !== undefined) headers.Origin = init.origin;
  if (init.referer !== undefined) headers.Referer = init.referer;
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  return SELF.fetch(`${BASE}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

/** Every way a change's page is not the service's own. */
const FOREIGN_PAGES: Record<string, Page> = {
  "a foreign Origin": { origin: EVIL },
  "a sibling subdomain's Origin": { origin: "https://evil.chatd.test" },
  "the same host over another scheme": { origin: "https://chatd.test" },
  "Origin: null, with an own Referer": { origin: "null", referer: `${OWN}/chats` },
  "a foreign Origin, with an own Referer": { origin: EVIL, referer: `${OWN}/chats` },
  "no Origin and a foreign Referer": { referer: `${EVIL}/attack.html` },
  "neither Origin nor Referer": {},
};

async function refused(res: Response): Promise<void> {
  const body = await expectJson<{ code: string; message: string }>(res, 403);
  expect(body.code).toBe("origin_not_allowed");
  expect(body.message).toBeTruthy();
}

async function ok(res: Response): Promise<void> {
  const body = await res.text();
  expect(res.status, body).toBeGreaterThanOrEqual(200);
  expect(res.status, body).toBeLessThan(300);
}

/** The user's chats and their messages and queue, as one comparable text. */
async function rowsOf(user: TestUser): Promise<string> {
  return withDb(async (db) => {
    const { rows } = await db.$client.query(
      `SELECT jsonb_build_object(
         'chats', (SELECT coalesce(jsonb_agg(to_jsonb(c) ORDER BY c.id), '[]') FROM chats c WHERE c.owner_id = $1),
         'messages', (SELECT coalesce(jsonb_agg(to_jsonb(m) ORDER BY m.id), '[]') FROM chat_messages m JOIN chats c ON c.id = m.chat_id WHERE c.owner_id = $1),
         'queue', (SELECT coalesce(jsonb_agg(to_jsonb(q) ORDER BY q.id), '[]') FROM chat_queued_messages q JOIN chats c ON c.id = q.chat_id WHERE c.owner_id = $1),
         'keys', (SELECT coalesce(jsonb_agg(to_jsonb(k) - 'last_used_at' - 'expires_at' ORDER BY k.id), '[]') FROM api_keys k WHERE k.user_id = $1))::text AS s`,
      [user.id],
    );
    return rows[0].s as string;
  });
}

async function chatOf(user: TestUser): Promise<string> {
  return (await expectJson<{ id: string }>(await api("/chats", { token: user.token, body: { content: [] } }), 201)).id;
}

describe("the session cookie on JSON routes", () => {
  it("authenticates reads with no Origin at all, in the Worker and in the chat's object", async () => {
    const user = await createTestUser();
    const chatId = await chatOf(user);
    await ok(await withCookie(user.token, "/users/me"));
    const list = await withCookie(user.token, "/chats");
    expect(JSON.stringify(await expectJson(list, 200))).toContain(chatId);
    expect((await expectJson<{ id: string }>(await withCookie(user.token, `/chats/${chatId}`), 200)).id).toBe(chatId);
    await ok(await withCookie(user.token, `/chats/${chatId}/messages`));
  });

  it("never shares a cookie read with another origin: no CORS grant, not even to a preflight", async () => {
    const user = await createTestUser();
    const chatId = await chatOf(user);
    for (const path of ["/users/me", "/chats", `/chats/${chatId}`]) {
      const res = await withCookie(user.token, path, { origin: EVIL });
      await ok(res);
      expect(res.headers.get("Access-Control-Allow-Origin"), path).toBeNull();
      expect(res.headers.get("Access-Control-Allow-Credentials"), path).toBeNull();
    }
    const preflight = await SELF.fetch(`${BASE}/chats`, {
      method: "OPTIONS",
      headers: { Origin: EVIL, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
    });
    await preflight.body?.cancel();
    expect(preflight.headers.get("Access-Control-Allow-Origin")).toBeNull();
    expect(preflight.headers.get("Access-Control-Allow-Credentials")).toBeNull();
  });

  it("refuses a change from any page that is not the service's own, and writes nothing", async () => {
    const user = await createTestUser();
    const chatId = await chatOf(user);
    const before = await rowsOf(user);
    for (const [name, page] of Object.entries(FOREIGN_PAGES)) {
      // Routes the Worker authenticates and routes the chat's object does: create, send, rename,
      // interrupt; mint a token, revoke the session itself.
      const changes: [string, string, unknown][] = [
        ["POST", "/chats", { content: text("forged") }],
        ["POST", `/chats/${chatId}/messages`, { content: text("forged") }],
        ["PATCH", `/chats/${chatId}`, { title: "forged", archived: true }],
        ["POST", `/chats/${chatId}/interrupt`, undefined],
        ["POST", "/users/me/keys/tokens", { token_name: "forged" }],
        ["DELETE", `/users/me/keys/${user.apiKeyId}`, undefined],
      ];
      for (const [method, path, body] of changes) {
        const res = await withCookie(user.token, path, { method, body, ...page });
        await expect(refused(res), `${name}: ${method} ${path}`).resolves.toBeUndefined();
      }
    }
    expect(await rowsOf(user)).toBe(before);
  });

  it("takes a change from the service's own page, by its Origin or, without one, its Referer", async () => {
    const user = await createTestUser();
    const created = await withCookie(user.token, "/chats", { body: { content: [] }, origin: OWN });
    const { id: chatId } = await expectJson<{ id: string }>(created, 201);
    // The object authenticates the cookie's token like any other: a send, a rename, a delete.
    await ok(await withCookie(user.token, `/chats/${chatId}/messages`, { body: { content: text("hello") }, origin: OWN }));
    await ok(
      await withCookie(user.token, `/chats/${chatId}`, { method: "PATCH", body: { title: "renamed" }, referer: `${OWN}/chats/${chatId}` }),
    );
    const read = await expectJson<{ title: string }>(await withCookie(user.token, `/chats/${chatId}`), 200);
    expect(read.title).toBe("renamed");
    const messages = await withDb(async (db) => {
      const { rows } = await db.$client.query("SELECT count(*)::int AS n FROM chat_messages WHERE chat_id = $1", [chatId]);
      return rows[0].n as number;
    });
    expect(messages).toBeGreaterThan(0);
    // Origins compare without regard to case.
    await ok(await withCookie(user.token, `/chats/${chatId}/interrupt`, { method: "POST", origin: OWN.toUpperCase() }));
  });

  it("leaves header tokens alone: no Origin needed, and a foreign one changes nothing", async () => {
    const user = await createTestUser();
    const bearer = await api("/chats", { token: user.token, body: { content: [] }, headers: { Origin: EVIL } });
    const { id: chatId } = await expectJson<{ id: string }>(bearer, 201);
    const sessionHeader = await SELF.fetch(`${BASE}/chats/${chatId}`, {
      method: "PATCH",
      headers: { "Coder-Session-Token": user.token, "Content-Type": "application/json", Referer: `${EVIL}/` },
      body: JSON.stringify({ title: "by header" }),
    });
    await ok(sessionHeader);
    await ok(await api(`/chats/${chatId}/messages`, { token: user.token, body: { content: text("no origin") } }));
  });

  it("does not let a foreign page's cookie ride along with a header token of nobody", async () => {
    // A malformed header token is the request's credential: the cookie behind it is never tried.
    const user = await createTestUser();
    const res = await SELF.fetch(`${BASE}/chats`, {
      method: "POST",
      headers: {
        Authorization: "Bearer nope",
        Cookie: `coder_session_token=${user.token}`,
        Origin: EVIL,
        "Content-Type": "application/json",
      },
      body: JSON.stringify({ content: [] }),
    });
    expect((await expectJson<{ code: string }>(res, 401)).code).toBe("unauthorized");
  });
});
