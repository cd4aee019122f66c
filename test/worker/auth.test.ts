import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getApiKey } from "../../src/accounts/api-keys";
import { apiKeys, users } from "../../src/db/schema/auth";
import type { AppEnv } from "../../src/http/app-env";
import { requireStreamCredentials } from "../../src/http/auth";
import { onError } from "../../src/http/errors";
import { api, BASE, createTestUser, expectJson, withDb } from "./support/accounts";

interface ErrorJson {
  code: string;
  message: string;
  detail?: string;
}

describe("authentication", () => {
  it("accepts Authorization: Bearer and Coder-Session-Token", async () => {
    const u = await createTestUser();
    expect((await expectJson<{ id: string }>(await api("/users/me", { token: u.token }), 200)).id).toBe(u.id);
    const res = await SELF.fetch(`${BASE}/users/me`, { headers: { "Coder-Session-Token": u.token } });
    expect((await expectJson<{ id: string }>(res, 200)).id).toBe(u.id);
  });

  it.each([
    ["no token", {}],
    ["a non-bearer Authorization header", { Authorization: "Basic dXNlcjpwYXNz" }],
    ["a malformed token", { Authorization: "Bearer not-a-token" }],
    ["an unknown key", { Authorization: "Bearer abcdefghij-abcdefghijabcdefghijabcdefghij" }],
  ])("answers 401 unauthorized for %s", async (_name, headers) => {
    const res = await SELF.fetch(`${BASE}/users/me`, { headers });
    expect((await expectJson<ErrorJson>(res, 401)).code).toBe("unauthorized");
  });

  it("answers 401 for the right key id with a wrong secret", async () => {
    const u = await createTestUser();
    const [id] = u.token.split("-");
    const res = await api("/users/me", { token: `${id}-${"x".repeat(32)}` });
    expect((await expectJson<ErrorJson>(res, 401)).code).toBe("unauthorized");
  });

  it("answers 401 for an expired token", async () => {
    const u = await createTestUser({ expiresAt: new Date(Date.now() - 1000) });
    const body = await expectJson<ErrorJson>(await api("/users/me", { token: u.token }), 401);
    expect(body.detail).toMatch(/expired/);
  });

  it("answers 401 for a suspended user", async () => {
    const u = await createTestUser();
    await withDb((db) => db.update(users).set({ suspended: true }).where(eq(users.id, u.id)));
    const body = await expectJson<ErrorJson>(await api("/users/me", { token: u.token }), 401);
    expect(body.detail).toMatch(/suspended/);
  });

  it("answers 401 for a key of another scope even with the right secret", async () => {
    const u = await createTestUser();
    await withDb((db) => db.update(apiKeys).set({ scope: "chatd:attribution" }).where(eq(apiKeys.id, u.apiKeyId)));
    expect((await api("/users/me", { token: u.token })).status).toBe(401);
  });

  it("takes the session cookie on ordinary routes, but never the query parameter", async () => {
    const u = await createTestUser();
    expect((await SELF.fetch(`${BASE}/users/me?coder_session_token=${u.token}`)).status).toBe(401);
    expect((await SELF.fetch(`${BASE}/users/me`, { headers: { Cookie: `coder_session_token=${u.token}` } })).status).toBe(200);
  });

  it("records last use, at most once a minute", async () => {
    const u = await createTestUser();
    expect((await withDb((db) => getApiKey(db, u.apiKeyId)))?.lastUsedAt).toBeNull();
    await expectJson(await api("/users/me", { token: u.token }), 200);
    const first = (await withDb((db) => getApiKey(db, u.apiKeyId)))?.lastUsedAt;
    expect(first).toBeInstanceOf(Date);
    await expectJson(await api("/users/me", { token: u.token }), 200);
    expect((await withDb((db) => getApiKey(db, u.apiKeyId)))?.lastUsedAt?.toISOString()).toBe(first?.toISOString());
  });
});

describe("stream authentication (WebSocket routes)", () => {
  // A stand-in stream route: browsers cannot set headers on a WebSocket. The token is taken here and
  // authenticated by the chat's object (test/worker/object-auth.test.ts).
  const app = new Hono<AppEnv>().get("/stream", requireStreamCredentials, (c) => c.json({ token: c.var.credentials }));
  app.onError(onError);

  async function call(path: string, headers: Record<string, string> = {}): Promise<Response> {
    const ctx = createExecutionContext();
    const res = await app.request(path, { headers }, env, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  }

  it("accepts the coder_session_token cookie or query parameter, and the headers", async () => {
    const u = await createTestUser();
    for (const res of [
      await call(`/stream?coder_session_token=${u.token}`),
      await call("/stream", { Cookie: `other=1; coder_session_token=${u.token}` }),
      await call("/stream", { Authorization: `Bearer ${u.token}` }),
    ]) {
      expect(await expectJson<{ token: string }>(res, 200)).toEqual({ token: u.token });
    }
  });

  it("answers 401 for a missing or malformed stream token", async () => {
    expect((await call("/stream")).status).toBe(401);
    expect((await call("/stream?coder_session_token=not-a-token")).status).toBe(401);
  });
});
