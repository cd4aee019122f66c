import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { parseToken, verifySecret } from "../../src/accounts/token";
import { getApiKey } from "../../src/accounts/api-keys";
import { getMemberRole } from "../../src/accounts/organizations";
import { users as usersTable } from "../../src/db/schema/auth";
import { api, createOrg, createTestUser, expectJson, joinOrg, unique, withDb } from "./support/accounts";

interface UserJson {
  id: string;
  email: string;
  username: string;
  roles: string[];
  organization_ids: string[];
  created_at: string;
}
interface ErrorJson {
  code: string;
  validations?: { field: string; detail: string }[];
}

/** Users with this username: other test files create users in parallel, so count only ours. */
const usersNamed = (username: string) =>
  withDb(async (db) => (await db.select({ id: usersTable.id }).from(usersTable).where(eq(usersTable.username, username))).length);

/** The worker project's CHAT_BOOTSTRAP_SECRET (vitest.config.ts). */
const BOOTSTRAP = { "Chatd-Bootstrap-Secret": "worker-project-bootstrap-secret" };

describe("POST /users/first", () => {
  // Its success path runs in test/db/accounts.test.ts on a database of its own: this one is shared.
  it("answers 409 first_user_exists once any user exists, and writes nothing", async () => {
    await createTestUser();
    const username = unique("f");
    const res = await api("/users/first", { body: { email: `${username}@example.com`, username }, headers: BOOTSTRAP });
    expect((await expectJson<ErrorJson>(res, 409)).code).toBe("first_user_exists");
    expect(await usersNamed(username)).toBe(0);
  });

  it("answers 403 bootstrap_secret_invalid without the operator's secret, or with another, and writes nothing", async () => {
    const username = unique("f");
    const body = { email: `${username}@example.com`, username, password: "long enough" };
    for (const headers of [{}, { "Chatd-Bootstrap-Secret": "a guess that is long enough" }] as Record<string, string>[]) {
      const res = await api("/users/first", { body, headers });
      expect((await expectJson<ErrorJson>(res, 403)).code).toBe("bootstrap_secret_invalid");
    }
    expect(await usersNamed(username)).toBe(0);
  });

  it("validates the body before anything else", async () => {
    const res = await api("/users/first", { body: { email: "not-an-email", username: "has space", password: "short" } });
    const body = await expectJson<ErrorJson>(res, 400);
    expect(body.code).toBe("validation_failed");
    expect(body.validations?.map((v) => v.field).sort()).toEqual(["email", "password", "username"]);
  });

  it("answers 413 payload_too_large for a body over 1 MiB", async () => {
    const res = await api("/users/first", { body: { email: "a@example.com", username: "a", password: "x".repeat(1024 * 1024) } });
    expect((await expectJson<ErrorJson>(res, 413)).code).toBe("payload_too_large");
  });
});

describe("GET /users/me", () => {
  it("returns the caller with site roles and organizations", async () => {
    const u = await createTestUser({ siteOwner: true });
    const other = await createOrg();
    await joinOrg(u.id, other, "member");
    const me = await expectJson<UserJson>(await api("/users/me", { token: u.token }), 200);
    expect(me).toMatchObject({ id: u.id, email: u.email, username: u.username, roles: ["owner"] });
    expect(me.organization_ids.sort()).toEqual([u.organizationId, other].sort());
    expect(new Date(me.created_at).toISOString()).toBe(me.created_at);
  });

  it("answers 401 without a token", async () => {
    expect((await api("/users/me")).status).toBe(401);
  });
});

describe("POST /users", () => {
  it("lets an organization admin add a member to their organization", async () => {
    const admin = await createTestUser({ role: "admin" });
    const username = unique("n");
    const res = await api("/users", {
      token: admin.token,
      body: { email: `${username.toUpperCase()}@Example.com`, username, organization_id: admin.organizationId },
    });
    const created = await expectJson<UserJson>(res, 201);
    expect(created).toMatchObject({ username, email: `${username}@example.com`, roles: [], organization_ids: [admin.organizationId] });
    expect(await withDb((db) => getMemberRole(db, admin.organizationId, created.id))).toBe("member");
  });

  it("lets the site owner add a user to any organization", async () => {
    const owner = await createTestUser({ siteOwner: true });
    const org = await createOrg();
    const username = unique("n");
    const res = await api("/users", { token: owner.token, body: { email: `${username}@example.com`, username, organization_id: org } });
    expect((await expectJson<UserJson>(res, 201)).organization_ids).toEqual([org]);
  });

  it("refuses a plain member with 403 and writes nothing", async () => {
    const member = await createTestUser();
    const username = unique("n");
    const res = await api("/users", {
      token: member.token,
      body: { email: `${username}@example.com`, username, organization_id: member.organizationId },
    });
    expect((await expectJson<ErrorJson>(res, 403)).code).toBe("forbidden");
    expect(await usersNamed(username)).toBe(0);
  });

  it("answers 404 for an organization the caller is not in", async () => {
    const admin = await createTestUser({ role: "admin" });
    const elsewhere = await createOrg();
    const username = unique("n");
    const res = await api("/users", {
      token: admin.token,
      body: { email: `${username}@example.com`, username, organization_id: elsewhere },
    });
    expect((await expectJson<ErrorJson>(res, 404)).code).toBe("not_found");
  });

  it("answers 409 already_exists for a taken email", async () => {
    const admin = await createTestUser({ role: "admin" });
    const res = await api("/users", {
      token: admin.token,
      body: { email: admin.email, username: unique("n"), organization_id: admin.organizationId },
    });
    expect((await expectJson<ErrorJson>(res, 409)).code).toBe("already_exists");
  });

  it("answers 400 with validations for a malformed body", async () => {
    const admin = await createTestUser({ role: "admin" });
    const res = await api("/users", { token: admin.token, body: { email: 3, username: "me", organization_id: "nope" } });
    const body = await expectJson<ErrorJson>(res, 400);
    expect(body.validations?.map((v) => v.field).sort()).toEqual(["email", "organization_id", "username"]);
  });

  it("answers 401 without a token", async () => {
    expect((await api("/users", { body: { email: "x@example.com", username: "x" } })).status).toBe(401);
  });
});

describe("POST /users/{user}/keys/tokens", () => {
  it("mints a working token for the caller, storing only its hash", async () => {
    const u = await createTestUser();
    const res = await api("/users/me/keys/tokens", { token: u.token, body: { token_name: "laptop", lifetime_seconds: 3600 } });
    const { key } = await expectJson<{ key: string }>(res, 201);
    const parsed = parseToken(key);
    const stored = await withDb((db) => getApiKey(db, parsed?.id ?? ""));
    expect(stored).toMatchObject({ userId: u.id, tokenName: "laptop", loginType: "token", scope: "all" });
    expect(stored?.hashedSecret).not.toContain(parsed?.secret);
    expect(await verifySecret(parsed?.secret ?? "", stored?.hashedSecret ?? "")).toBe(true);
    const remaining = (stored?.expiresAt.getTime() ?? 0) - Date.now();
    expect(remaining).toBeGreaterThan(3500_000);
    expect(remaining).toBeLessThanOrEqual(3600_000);
    expect((await expectJson<{ id: string }>(await api("/users/me", { token: key }), 200)).id).toBe(u.id);
  });

  it("accepts the caller's own ID or username", async () => {
    const u = await createTestUser();
    expect((await api(`/users/${u.id}/keys/tokens`, { token: u.token, body: { token_name: "by-id" } })).status).toBe(201);
    expect((await api(`/users/${u.username}/keys/tokens`, { token: u.token, body: { token_name: "by-name" } })).status).toBe(201);
  });

  it("answers 404 for another user's tokens, and writes nothing", async () => {
    const u = await createTestUser();
    const other = await createTestUser({ organizationId: u.organizationId, role: "admin" });
    const res = await api(`/users/${u.id}/keys/tokens`, { token: other.token, body: { token_name: "theirs" } });
    expect((await expectJson<ErrorJson>(res, 404)).code).toBe("not_found");
    const keys = await withDb((db) => db.query.apiKeys.findMany({ where: (k, { eq: is }) => is(k.userId, u.id) }));
    expect(keys.map((k) => k.tokenName)).toEqual(["test"]);
  });

  it("lets the site owner mint a token for anyone", async () => {
    const owner = await createTestUser({ siteOwner: true });
    const u = await createTestUser();
    const { key } = await expectJson<{ key: string }>(
      await api(`/users/${u.id}/keys/tokens`, { token: owner.token, body: { token_name: "for-you" } }),
      201,
    );
    expect((await expectJson<{ id: string }>(await api("/users/me", { token: key }), 200)).id).toBe(u.id);
  });

  it("answers 409 for a token name the user already has", async () => {
    const u = await createTestUser();
    const res = await api("/users/me/keys/tokens", { token: u.token, body: { token_name: "test" } });
    expect((await expectJson<ErrorJson>(res, 409)).code).toBe("already_exists");
  });

  it("answers 400 with validations for a malformed body", async () => {
    const u = await createTestUser();
    const res = await api("/users/me/keys/tokens", { token: u.token, body: { token_name: "", lifetime_seconds: 1.5 } });
    const body = await expectJson<ErrorJson>(res, 400);
    expect(body.validations?.map((v) => v.field).sort()).toEqual(["lifetime_seconds", "token_name"]);
  });

  it("answers 401 without a token", async () => {
    expect((await api("/users/me/keys/tokens", { body: { token_name: "x" } })).status).toBe(401);
  });
});
