/**
 * The object's attribution key cache (src/chat-worker/attribution.ts) against the real database: one
 * resolution per window instead of a transaction per turn, re-resolution before the 24 h extension
 * window (which extends the same key), and a suspended owner seen within OWNER_RECHECK_MS.
 */
import { describe, expect, it } from "vitest";
import { ATTRIBUTION_KEY_LIFETIME_MS, AttributionOwnerSuspendedError } from "../../src/accounts/synthetic-key";
import type { Database } from "../../src/db/database";
import { AttributionKeyCache, attributionFor, OWNER_RECHECK_MS } from "../../src/chat-worker/attribution";
import { fileEnv, makeOwner } from "./fixtures";

const file = fileEnv();

const DAY = 24 * 3600_000;

/** Counts the transactions and reads the cache opens. */
function counting(inner: Database): { db: Database; count: () => number } {
  let n = 0;
  const wrapped = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === "transaction" || prop === "select") {
        return (...args: unknown[]) => {
          n += 1;
          return (Reflect.get(target, prop) as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  return { db: wrapped, count: () => n };
}

const expiryOf = async (id: string) =>
  ((await file.env.pool.query(`SELECT expires_at FROM api_keys WHERE id = $1`, [id])).rows[0]!.expires_at as Date).getTime();

describe("AttributionKeyCache", () => {
  it("resolves once, then reuses the id until the owner recheck is due", async () => {
    const owner = await makeOwner(file.env.pool);
    const cache = new AttributionKeyCache();
    const c = counting(file.db);
    const t0 = Date.now();
    const id = await cache.keyIdFor(c.db, owner.userId, new Date(t0));
    expect(await cache.keyIdFor(c.db, owner.userId, new Date(t0 + 1000))).toBe(id);
    expect(await cache.keyIdFor(c.db, owner.userId, new Date(t0 + OWNER_RECHECK_MS - 1))).toBe(id);
    // The first resolution mints: a read, then the locked transaction.
    expect(c.count()).toBe(2);
    expect(await cache.keyIdFor(c.db, owner.userId, new Date(t0 + OWNER_RECHECK_MS))).toBe(id);
    // A live key far from its extension window: one read, no transaction.
    expect(c.count()).toBe(3);
  });

  it("keeps at most its bound of owners, letting the oldest go first", async () => {
    const [a, b, c] = [await makeOwner(file.env.pool), await makeOwner(file.env.pool), await makeOwner(file.env.pool)];
    const cache = new AttributionKeyCache(2);
    const counted = counting(file.db);
    const now = new Date();
    for (const owner of [a, b, c]) await cache.keyIdFor(counted.db, owner.userId, now);
    const resolved = counted.count();
    // b and c are kept; a was let go and is resolved again (one read: its key is live).
    await cache.keyIdFor(counted.db, c.userId, now);
    await cache.keyIdFor(counted.db, b.userId, now);
    expect(counted.count()).toBe(resolved);
    await cache.keyIdFor(counted.db, a.userId, now);
    expect(counted.count()).toBe(resolved + 1);
  });

  it("re-resolves near the extension window, and the key is extended in place", async () => {
    const owner = await makeOwner(file.env.pool);
    const cache = new AttributionKeyCache();
    const t0 = Date.now();
    const id = await cache.keyIdFor(file.db, owner.userId, new Date(t0));
    expect(await expiryOf(id)).toBe(t0 + ATTRIBUTION_KEY_LIFETIME_MS);
    // 29 days and a half later: under 24 h remain, the next call extends the same row.
    const later = t0 + ATTRIBUTION_KEY_LIFETIME_MS - DAY / 2;
    expect(await cache.keyIdFor(file.db, owner.userId, new Date(later))).toBe(id);
    expect(await expiryOf(id)).toBe(later + ATTRIBUTION_KEY_LIFETIME_MS);
  });

  it("blocks a suspended owner once the recheck is due", async () => {
    const owner = await makeOwner(file.env.pool);
    const cache = new AttributionKeyCache();
    const t0 = Date.now();
    const chat = { id: "chat", ownerId: owner.userId };
    const first = await attributionFor({ db: file.db, now: () => new Date(t0), attributionKeys: cache }, chat);
    await file.env.pool.query(`UPDATE users SET suspended = true WHERE id = $1`, [owner.userId]);
    await expect(
      attributionFor({ db: file.db, now: () => new Date(t0 + OWNER_RECHECK_MS), attributionKeys: cache }, chat),
    ).rejects.toBeInstanceOf(AttributionOwnerSuspendedError);
    expect(JSON.parse(first.headers["cf-aig-metadata"]!)).toEqual({ chatd_key_id: first.keyId, chat_id: "chat" });
  });
});
