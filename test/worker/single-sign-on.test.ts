/**
 * Single sign-on against a real OpenID Connect provider (oidc-provider, started by this project's
 * globalSetup: test/support/oidc-provider-setup.ts): the browser's round trip is played with
 * fetch, the provider's cookies kept. A new user is created in the configured organization and
 * signed in; a returning user is the same user; an unverified email, another domain and a
 * suspended account are refused; a callback not started here is refused.
 */
import { SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { organizationMembers, organizations, users } from "../../src/db/schema/auth";
import { api, BASE, expectJson, unique, withDb } from "./support/accounts";

const APP = new URL(BASE).origin;

beforeAll(async () => {
  // The organization new accounts join (the project's OIDC_ORGANIZATION).
  await withDb((db) => db.insert(organizations).values({ name: "sso-team" }).onConflictDoNothing());
});

function cookieOf(res: Response, name: string): string | undefined {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const [key, value] = (pair ?? "").split("=");
    if (key?.trim() === name) return value;
  }
  return undefined;
}

/** The whole browser round trip for `identity`: what our callback answered. */
async function signInAs(identity: { email: string; email_verified: boolean }): Promise<Response> {
  const issuer = inject("oidcIssuerUrl");
  await fetch(`${issuer}/test/identity`, { method: "POST", body: JSON.stringify(identity) });
  const start = await SELF.fetch(`${BASE}/users/oidc/login`, { redirect: "manual" });
  expect(start.status).toBe(302);
  const flow = cookieOf(start, "chatd_oidc");
  let location = start.headers.get("Location") ?? "";
  expect(location.startsWith(issuer)).toBe(true);
  // The provider's pages, as the browser follows them, with the provider's cookies.
  const jar = new Map<string, string>();
  for (let hop = 0; hop < 10 && !location.startsWith(APP); hop++) {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await fetch(location, { redirect: "manual", headers: cookie ? { cookie } : {} });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = (pair ?? "").indexOf("=");
      jar.set((pair ?? "").slice(0, at), (pair ?? "").slice(at + 1));
    }
    const next = res.headers.get("Location");
    await res.body?.cancel();
    if (!next) throw new Error(`the provider answered ${res.status} at ${location}`);
    location = new URL(next, location).toString();
  }
  expect(location.startsWith(`${APP}/api/v2/users/oidc/callback`)).toBe(true);
  return SELF.fetch(location, { redirect: "manual", headers: { Cookie: `chatd_oidc=${flow}` } });
}

describe("single sign-on", () => {
  it("creates a new user on the first sign-in, in the configured organization, and signs them in", async () => {
    const email = `${unique("ada")}@sso.example.com`;
    const done = await signInAs({ email, email_verified: true });
    expect(done.status).toBe(302);
    expect(done.headers.get("Location")).toBe("/");
    const session = cookieOf(done, "coder_session_token") ?? "";
    const me = await expectJson<{ id: string; email: string; organization_ids: string[] }>(await api("/users/me", { token: session }), 200);
    expect(me.email).toBe(email);
    const [team] = await withDb((db) => db.select().from(organizations).where(eq(organizations.name, "sso-team")));
    expect(me.organization_ids).toEqual([team?.id]);

    // Signing in again is the same user, with a new session.
    const again = await signInAs({ email, email_verified: true });
    const second = cookieOf(again, "coder_session_token") ?? "";
    expect(second).not.toBe(session);
    expect((await expectJson<{ id: string }>(await api("/users/me", { token: second }), 200)).id).toBe(me.id);
    const members = await withDb((db) => db.select().from(organizationMembers).where(eq(organizationMembers.userId, me.id)));
    expect(members).toHaveLength(1);
  });

  it("refuses an unverified email, another domain and a suspended account, creating nobody", async () => {
    const unverified = `${unique("eve")}@sso.example.com`;
    const elsewhere = `${unique("mallory")}@other.example.com`;
    for (const identity of [
      { email: unverified, email_verified: false },
      { email: elsewhere, email_verified: true },
    ]) {
      const res = await signInAs(identity);
      expect((await expectJson<{ code: string }>(res, 403)).code).toBe("sso_refused");
    }
    const created = await withDb((db) => db.select().from(users).where(eq(users.email, elsewhere)));
    expect(created).toEqual([]);

    const email = `${unique("sam")}@sso.example.com`;
    await (await signInAs({ email, email_verified: true })).body?.cancel();
    await withDb((db) => db.update(users).set({ suspended: true }).where(eq(users.email, email)));
    expect((await expectJson<{ code: string }>(await signInAs({ email, email_verified: true }), 403)).code).toBe("sso_refused");
  });

  it("refuses a callback this service did not start", async () => {
    const res = await SELF.fetch(`${BASE}/users/oidc/callback?code=stolen&state=guessed`, { redirect: "manual" });
    expect((await expectJson<{ code: string }>(res, 400)).code).toBe("sso_failed");
  });
});
