/**
 * Account data access against a real Postgres, each suite in its own fresh database: the first
 * user can succeed only once per database, which the shared worker-test database cannot offer.
 */
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "../../src/accounts/password";
import { hashSecret, parseToken } from "../../src/accounts/token";
import { createApiKey, getApiKey, touchApiKey, TOKEN_LOGIN_TYPE, usageIsStale } from "../../src/accounts/api-keys";
import { AlreadyExistsError, FirstUserExistsError } from "../../src/accounts/errors";
import { getMemberRole, organizationIdsOf } from "../../src/accounts/organizations";
import { createFirstUser, createUser } from "../../src/accounts/users";
import type { Database } from "../../src/db/database";
import { apiKeys, organizationMembers, organizations, users } from "../../src/db/schema/auth";
import { createOwnDatabase, type OwnDatabase } from "./support/own-database";

const SESSIONS = { idleMs: 86_400_000, maxMs: 2_592_000_000 };

async function counts(db: Database) {
  const [u] = await db.select({ n: count() }).from(users);
  const [o] = await db.select({ n: count() }).from(organizations);
  const [m] = await db.select({ n: count() }).from(organizationMembers);
  const [k] = await db.select({ n: count() }).from(apiKeys);
  return { users: u?.n, organizations: o?.n, members: m?.n, keys: k?.n };
}

describe("first user", () => {
  let own: OwnDatabase;
  beforeAll(async () => {
    own = await createOwnDatabase("accounts_first");
  });
  afterAll(async () => own?.drop());

  it("creates the site owner, the default organization, an owner membership and a session token", async () => {
    const now = new Date();
    const first = await createFirstUser(own.db, { email: "owner@example.com", username: "owner", password: "s3cret-pass" }, now);
    expect(first.user.siteRoles).toEqual(["owner"]);
    expect(first.user.loginType).toBe("password");
    expect(first.user.passwordHash).not.toContain("s3cret-pass");
    expect(await verifyPassword("s3cret-pass", first.user.passwordHash ?? "")).toBe(true);
    expect(first.organization.isDefault).toBe(true);
    expect(await getMemberRole(own.db, first.organization.id, first.user.id)).toBe("owner");
    expect(await organizationIdsOf(own.db, first.user.id)).toEqual([first.organization.id]);

    const parsed = parseToken(first.sessionToken);
    expect(parsed?.id).toBe(first.sessionKey.id);
    const stored = await getApiKey(own.db, first.sessionKey.id);
    expect(stored?.hashedSecret).toBe(await hashSecret(parsed?.secret ?? ""));
    expect(stored?.scope).toBe("all");
    expect(stored?.loginType).toBe("password");
    expect(stored?.expiresAt.getTime()).toBe(now.getTime() + 30 * 24 * 3600 * 1000);
  });

  it("refuses a second first user and writes nothing", async () => {
    const before = await counts(own.db);
    await expect(createFirstUser(own.db, { email: "second@example.com", username: "second" }, new Date())).rejects.toBeInstanceOf(
      FirstUserExistsError,
    );
    expect(await counts(own.db)).toEqual(before);
  });
});

describe("first user under concurrency", () => {
  let own: OwnDatabase;
  beforeAll(async () => {
    own = await createOwnDatabase("accounts_race");
  });
  afterAll(async () => own?.drop());

  it("lets exactly one of eight racing first users through", async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => createFirstUser(own.db, { email: `racer${i}@example.com`, username: `racer${i}` }, new Date())),
    );
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(7);
    for (const r of lost) expect(r.reason).toBeInstanceOf(FirstUserExistsError);
    expect(await counts(own.db)).toEqual({ users: 1, organizations: 1, members: 1, keys: 1 });
  });
});

describe("users and keys", () => {
  let own: OwnDatabase;
  let orgId: string;
  let ownerId: string;
  beforeAll(async () => {
    own = await createOwnDatabase("accounts_users");
    const first = await createFirstUser(own.db, { email: "boss@example.com", username: "boss" }, new Date());
    orgId = first.organization.id;
    ownerId = first.user.id;
  });
  afterAll(async () => own?.drop());

  it("creates a member without a password (login type none)", async () => {
    const user = await createUser(own.db, { email: "m@example.com", username: "member1", organizationId: orgId, role: "member" });
    expect(user.loginType).toBe("none");
    expect(user.passwordHash).toBeNull();
    expect(user.siteRoles).toEqual([]);
    expect(await getMemberRole(own.db, orgId, user.id)).toBe("member");
  });

  it.each([
    ["email", { email: "m@example.com", username: "other" }],
    ["username", { email: "other@example.com", username: "member1" }],
  ])("refuses a taken %s and writes nothing", async (field, input) => {
    const before = await counts(own.db);
    const err = await createUser(own.db, { ...input, organizationId: orgId, role: "member" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AlreadyExistsError);
    expect((err as AlreadyExistsError).field).toBe(field);
    expect(await counts(own.db)).toEqual(before);
  });

  it("refuses a second user token with the same name, but not a session key of that name", async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    await createApiKey(own.db, { userId: ownerId, tokenName: "ci", loginType: TOKEN_LOGIN_TYPE, expiresAt });
    await expect(createApiKey(own.db, { userId: ownerId, tokenName: "ci", loginType: TOKEN_LOGIN_TYPE, expiresAt })).rejects.toBeInstanceOf(
      AlreadyExistsError,
    );
    // The unique index covers only login_type = 'token' rows, as the spec says.
    await expect(createApiKey(own.db, { userId: ownerId, tokenName: "ci", loginType: "password", expiresAt })).resolves.toBeTruthy();
  });

  it("records use at most once a minute", async () => {
    const { key } = await createApiKey(own.db, {
      userId: ownerId,
      tokenName: "touch",
      loginType: TOKEN_LOGIN_TYPE,
      expiresAt: new Date(Date.now() + 60_000),
    });
    const t0 = new Date("2030-01-01T00:00:00Z");
    await touchApiKey(own.db, key.id, t0, SESSIONS);
    await touchApiKey(own.db, key.id, new Date(t0.getTime() + 59_000), SESSIONS);
    expect((await getApiKey(own.db, key.id))?.lastUsedAt?.toISOString()).toBe(t0.toISOString());
    const t1 = new Date(t0.getTime() + 61_000);
    await touchApiKey(own.db, key.id, t1, SESSIONS);
    expect((await getApiKey(own.db, key.id))?.lastUsedAt?.toISOString()).toBe(t1.toISOString());
    const [row] = await own.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(row?.lastUsedAt?.toISOString()).toBe(t1.toISOString());
  });

  it("decides from the row just read whether use must be recorded, so most requests write nothing", () => {
    const t0 = new Date("2030-01-01T00:00:00Z");
    expect(usageIsStale({ lastUsedAt: null }, t0)).toBe(true);
    expect(usageIsStale({ lastUsedAt: t0 }, new Date(t0.getTime() + 59_999))).toBe(false);
    expect(usageIsStale({ lastUsedAt: t0 }, new Date(t0.getTime() + 60_000))).toBe(true);
  });
});
