/**
 * The spec's Gateway attribution keys: stable ID across extensions, extension only under 24 h,
 * never a user's own token of the colliding name, and never usable as a credential.
 */
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  ATTRIBUTION_KEY_LIFETIME_MS,
  ATTRIBUTION_SCOPE,
  attributionTokenName,
  ensureAttributionKey,
} from "../../src/accounts/synthetic-key";
import { hashSecret } from "../../src/accounts/token";
import { advisoryXactLock, LOCK_NAMESPACE } from "../../src/db/advisory-lock";
import { getApiKey } from "../../src/accounts/api-keys";
import { apiKeys } from "../../src/db/schema/auth";
import { api, createTestUser, expectJson, withDb } from "./support/accounts";

const HOUR = 3600_000;

async function setExpiry(id: string, expiresAt: Date) {
  await withDb((db) => db.update(apiKeys).set({ expiresAt }).where(eq(apiKeys.id, id)));
}

describe("attribution keys", () => {
  it("mints one key with the owner's login type, minimal scope and a 30-day expiry", async () => {
    const u = await createTestUser();
    const now = new Date();
    const id = await withDb((db) => ensureAttributionKey(db, u.id, now));
    const key = await withDb((db) => getApiKey(db, id));
    expect(key).toMatchObject({ userId: u.id, tokenName: attributionTokenName(u.id), loginType: "none", scope: ATTRIBUTION_SCOPE });
    expect(key?.expiresAt.getTime()).toBe(now.getTime() + ATTRIBUTION_KEY_LIFETIME_MS);
  });

  it("keeps its ID: extends in place when under 24 h remain, and leaves it alone above", async () => {
    const u = await createTestUser();
    const id = await withDb((db) => ensureAttributionKey(db, u.id, new Date()));

    const later = new Date(Date.now() + 25 * HOUR);
    await setExpiry(id, later);
    expect(await withDb((db) => ensureAttributionKey(db, u.id, new Date()))).toBe(id);
    expect((await withDb((db) => getApiKey(db, id)))?.expiresAt.toISOString()).toBe(later.toISOString());

    const soon = new Date(Date.now() + 23 * HOUR);
    await setExpiry(id, soon);
    const now = new Date();
    expect(await withDb((db) => ensureAttributionKey(db, u.id, now))).toBe(id);
    expect((await withDb((db) => getApiKey(db, id)))?.expiresAt.getTime()).toBe(now.getTime() + ATTRIBUTION_KEY_LIFETIME_MS);

    // Already expired: still the same row, extended.
    await setExpiry(id, new Date(Date.now() - HOUR));
    expect(await withDb((db) => ensureAttributionKey(db, u.id, new Date()))).toBe(id);
    const rows = await withDb((db) =>
      db
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.userId, u.id), eq(apiKeys.tokenName, attributionTokenName(u.id)))),
    );
    expect(rows).toHaveLength(1);
  });

  it("serializes mints per user: waits for the user's lock, then mints a single key for all racers", async () => {
    const u = await createTestUser();
    await withDb(async (db) => {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked = () => {};
      const lockTaken = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const holder = db.transaction(async (tx) => {
        await advisoryXactLock(tx, LOCK_NAMESPACE.attributionKey, u.id);
        locked();
        await held;
      });
      await lockTaken;
      let settled = 0;
      const racers = Array.from({ length: 6 }, () => ensureAttributionKey(db, u.id, new Date()).finally(() => settled++));
      // Postgres itself says racers queue for the user's lock.
      const waiters = async () => {
        const { rows } = await db.$client.query(
          "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = $1::int4::oid",
          [LOCK_NAMESPACE.attributionKey],
        );
        return Number(rows[0]?.n);
      };
      await expect.poll(waiters).toBeGreaterThan(0);
      const settledWhileLocked = settled;
      release();
      await holder;
      const ids = await Promise.all(racers);
      expect(settledWhileLocked).toBe(0);
      expect(new Set(ids).size).toBe(1);
    }, 10);
    const rows = await withDb((db) =>
      db
        .select()
        .from(apiKeys)
        .where(eq(apiKeys.tokenName, attributionTokenName(u.id))),
    );
    expect(rows).toHaveLength(1);
  });

  it("never picks up or extends a user's own token that has the colliding name", async () => {
    const u = await createTestUser();
    const res = await api("/users/me/keys/tokens", {
      token: u.token,
      body: { token_name: attributionTokenName(u.id), lifetime_seconds: 3600 },
    });
    const { key: token } = await expectJson<{ key: string }>(res, 201);
    const userKeyId = token.split("-")[0] ?? "";
    const before = await withDb((db) => getApiKey(db, userKeyId));

    const id = await withDb((db) => ensureAttributionKey(db, u.id, new Date()));
    expect(id).not.toBe(userKeyId);
    expect((await withDb((db) => getApiKey(db, userKeyId)))?.expiresAt.toISOString()).toBe(before?.expiresAt.toISOString());
    // The user's token still works; it is theirs.
    expect((await api("/users/me", { token })).status).toBe(200);
  });

  it("can never authenticate, even when its secret is known", async () => {
    const u = await createTestUser();
    const id = await withDb((db) => ensureAttributionKey(db, u.id, new Date()));
    // Plant a secret we know; the key must still be refused by scope and shape.
    const secret = "known-secret-known-secret-known";
    await withDb(async (db) =>
      db
        .update(apiKeys)
        .set({ hashedSecret: await hashSecret(secret) })
        .where(eq(apiKeys.id, id)),
    );
    const res = await api("/users/me", { token: `${id}-${secret}` });
    expect((await expectJson<{ code: string }>(res, 401)).code).toBe("unauthorized");
    // Even with the scope widened, its name and non-token login type still mark it.
    await withDb((db) => db.update(apiKeys).set({ scope: "all" }).where(eq(apiKeys.id, id)));
    expect((await api("/users/me", { token: `${id}-${secret}` })).status).toBe(401);
  });
});
