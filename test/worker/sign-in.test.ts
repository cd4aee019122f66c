/**
 * Sign-in over the real routes (docs/accounts.md): email and password give a session token and
 * the HttpOnly session cookie; the cookie authenticates the JSON routes, with changes and WebSocket
 * upgrades refused from another origin; sign-out revokes the session; failed sign-ins are slowed;
 * a user lists and revokes their tokens, and a token minted by a session ends with it.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createUser } from "../../src/accounts/users";
import { api, BASE, createOrg, createTestUser, expectJson, unique, withDb } from "./support/accounts";

const ORIGIN = new URL(BASE).origin;
const PASSWORD = "correct horse battery";

interface ErrorJson {
  code: string;
  detail?: string;
}
interface KeyJson {
  id: string;
  user_id: string;
  token_name: string;
  login_type: string;
  expires_at: string;
  last_used_at: string | null;
  parent_key_id: string | null;
}

async function userWithPassword() {
  const organizationId = await createOrg();
  const username = unique("p");
  const email = `${username}@example.com`;
  const user = await withDb((db) => createUser(db, { email, username, password: PASSWORD, organizationId, role: "member" }));
  return { id: user.id, email, username, organizationId };
}

function login(email: string, password: string): Promise<Response> {
  return api("/users/login", { body: { email, password } });
}

async function signedIn(email: string) {
  const res = await login(email, PASSWORD);
  const cookie = res.headers.get("Set-Cookie") ?? "";
  const body = await expectJson<{ session_token: string; expires_at: string }>(res, 201);
  return { token: body.session_token, expiresAt: body.expires_at, cookie };
}

/** A request that presents only the session cookie. */
function withCookie(path: string, token: string, init: { method?: string; body?: unknown; origin?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { Cookie: `coder_session_token=${token}` };
  if (init.origin) headers.Origin = init.origin;
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  return SELF.fetch(`${BASE}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

async function statusOf(res: Response): Promise<number> {
  await res.body?.cancel();
  return res.status;
}

describe("POST /users/login", () => {
  it("answers a session token and sets it as an HttpOnly, Secure, SameSite cookie", async () => {
    const user = await userWithPassword();
    const { token, expiresAt, cookie } = await signedIn(user.email.toUpperCase());
    expect(cookie).toContain(`coder_session_token=${token}`);
    expect(cookie).toMatch(/HttpOnly/i);
    // chatd.test is not a local host: the cookie only travels over HTTPS.
    expect(cookie).toMatch(/Secure/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//i);
    expect(new Date(expiresAt).getTime()).toBeGreaterThan(Date.now());
    const me = await expectJson<{ id: string }>(await api("/users/me", { token }), 200);
    expect(me.id).toBe(user.id);
  });

  it("refuses a wrong password as 401 invalid_credentials, and then 429 with Retry-After once the account is locked", async () => {
    const user = await userWithPassword();
    // The worker project's CHAT_SIGN_IN_MAX_FAILURES is the default, 5.
    for (let i = 0; i < 5; i++) {
      expect((await expectJson<ErrorJson>(await login(user.email, "wrong password"), 401)).code).toBe("invalid_credentials");
    }
    const locked = await login(user.email, PASSWORD);
    expect(Number(locked.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await expectJson<ErrorJson>(locked, 429)).code).toBe("too_many_attempts");
  });

  it("answers an unknown email exactly as a wrong password", async () => {
    const res = await login(`${unique("nobody")}@example.com`, PASSWORD);
    expect(await expectJson<ErrorJson>(res, 401)).toMatchObject({ code: "invalid_credentials" });
  });

  it("validates the body", async () => {
    const res = await api("/users/login", { body: { email: "not-an-email" } });
    expect((await expectJson<ErrorJson>(res, 400)).code).toBe("validation_failed");
  });
});

describe("the session cookie", () => {
  it("authenticates reads from anywhere, and changes only from the service's own origin", async () => {
    const user = await userWithPassword();
    const { token } = await signedIn(user.email);
    expect(await statusOf(await withCookie("/users/me", token))).toBe(200);
    const body = { token_name: unique("t") };
    const noOrigin = await withCookie("/users/me/keys/tokens", token, { body });
    expect((await expectJson<ErrorJson>(noOrigin, 403)).code).toBe("origin_not_allowed");
    const foreign = await withCookie("/users/me/keys/tokens", token, { body, origin: "https://evil.example" });
    expect((await expectJson<ErrorJson>(foreign, 403)).code).toBe("origin_not_allowed");
    // Nothing was minted by the refused requests.
    const names = (await expectJson<KeyJson[]>(await api("/users/me/keys/tokens", { token }), 200)).map((k) => k.token_name);
    expect(names).not.toContain(body.token_name);
    expect(await statusOf(await withCookie("/users/me/keys/tokens", token, { body, origin: ORIGIN }))).toBe(201);
  });

  it("opens a chat's WebSocket only from an allowed origin; a token in the query is not checked for origin", async () => {
    const user = await userWithPassword();
    const { token } = await signedIn(user.email);
    const chat = await expectJson<{ id: string }>(await api("/chats", { token, body: { content: [] } }), 201);
    const upgrade = async (headers: Record<string, string>, query = "") => {
      const res = await SELF.fetch(`${BASE}/chats/${chat.id}/stream${query}`, { headers: { Upgrade: "websocket", ...headers } });
      if (res.webSocket) {
        res.webSocket.accept();
        res.webSocket.close(1000);
      }
      return statusOf(res);
    };
    const cookie = `coder_session_token=${token}`;
    expect(await upgrade({ Cookie: cookie, Origin: "https://evil.example" })).toBe(403);
    expect(await upgrade({ Cookie: cookie })).toBe(403);
    expect(await upgrade({ Cookie: cookie, Origin: ORIGIN })).toBe(101);
    expect(await upgrade({ Origin: "https://evil.example" }, `?coder_session_token=${token}`)).toBe(101);
  });

  it("is revoked by sign-out: the session no longer authenticates, by cookie or header", async () => {
    const user = await userWithPassword();
    const { token } = await signedIn(user.email);
    const out = await withCookie("/users/logout", token, { method: "POST", origin: ORIGIN });
    expect(out.headers.get("Set-Cookie")).toMatch(/coder_session_token=;.*Max-Age=0/i);
    await expectJson(out, 200);
    expect(await statusOf(await withCookie("/users/me", token))).toBe(401);
    expect(await statusOf(await api("/users/me", { token }))).toBe(401);
  });
});

describe("a user's tokens", () => {
  it("are listed without secrets, with their use, and revoked one by one", async () => {
    const user = await userWithPassword();
    const { token: session } = await signedIn(user.email);
    const minted = await expectJson<{ key: string }>(
      await api("/users/me/keys/tokens", { token: session, body: { token_name: "ci" } }),
      201,
    );
    expect(await statusOf(await api("/users/me", { token: minted.key }))).toBe(200);
    const keys = await expectJson<KeyJson[]>(await api("/users/me/keys/tokens", { token: session }), 200);
    const sessionId = session.slice(0, session.indexOf("-"));
    const ci = keys.find((k) => k.token_name === "ci");
    expect(keys.map((k) => k.id).sort()).toEqual([ci?.id, sessionId].sort());
    expect(JSON.stringify(keys)).not.toContain(minted.key.slice(minted.key.indexOf("-") + 1));
    expect(ci).toMatchObject({ user_id: user.id, login_type: "token", parent_key_id: sessionId });
    expect(ci?.last_used_at).not.toBeNull();

    expect(await statusOf(await api(`/users/me/keys/${ci?.id}`, { token: session, method: "DELETE" }))).toBe(204);
    expect(await statusOf(await api("/users/me", { token: minted.key }))).toBe(401);
    expect(await statusOf(await api(`/users/me/keys/${ci?.id}`, { token: session, method: "DELETE" }))).toBe(404);
  });

  it("minted with a session never outlive it: they expire with it and go when it is revoked", async () => {
    const user = await userWithPassword();
    const { token: session } = await signedIn(user.email);
    const minted = await expectJson<{ key: string }>(
      await api("/users/me/keys/tokens", { token: session, body: { token_name: "year", lifetime_seconds: 365 * 86_400 } }),
      201,
    );
    const keys = await expectJson<KeyJson[]>(await api("/users/me/keys/tokens", { token: session }), 200);
    // The session's use renewed it (docs/accounts.md); the token ends when the session did then.
    const sessionKey = keys.find((k) => k.id === session.slice(0, session.indexOf("-")));
    const year = keys.find((k) => k.token_name === "year");
    expect(new Date(year?.expires_at ?? 0).getTime()).toBeLessThanOrEqual(new Date(sessionKey?.expires_at ?? 0).getTime());
    expect(new Date(year?.expires_at ?? 0).getTime()).toBeLessThan(Date.now() + 2 * 86_400_000);
    expect(await statusOf(await api("/users/logout", { token: session, method: "POST" }))).toBe(200);
    expect(await statusOf(await api("/users/me", { token: minted.key }))).toBe(401);
  });

  it("of another user are not found, except by the site owner", async () => {
    const user = await userWithPassword();
    const { token: session } = await signedIn(user.email);
    const stranger = await createTestUser();
    const owner = await createTestUser({ siteOwner: true });
    expect(await statusOf(await api(`/users/${user.id}/keys/tokens`, { token: stranger.token }))).toBe(404);
    const sessionId = session.slice(0, session.indexOf("-"));
    expect(await statusOf(await api(`/users/${user.id}/keys/${sessionId}`, { token: stranger.token, method: "DELETE" }))).toBe(404);
    expect(await statusOf(await api("/users/me", { token: session }))).toBe(200);
    const listed = await expectJson<KeyJson[]>(await api(`/users/${user.id}/keys/tokens`, { token: owner.token }), 200);
    expect(listed.map((k) => k.id)).toContain(sessionId);
    expect(await statusOf(await api(`/users/${user.id}/keys/${sessionId}`, { token: owner.token, method: "DELETE" }))).toBe(204);
    expect(await statusOf(await api("/users/me", { token: session }))).toBe(401);
  });
});
