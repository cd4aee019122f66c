/**
 * VerifiedKeys records a key's use after the request that authenticated with it
 * (src/accounts/verified-keys.ts): a write started at once would hold the object's warm connection
 * while the request's own first statement opened another.
 */
import { describe, expect, it } from "vitest";
import { createApiKey, getApiKey, TOKEN_LOGIN_TYPE } from "../../src/accounts/api-keys";
import { VerifiedKeys } from "../../src/accounts/verified-keys";
import { fileEnv, makeOwner } from "./fixtures";

const file = fileEnv();
/** The wait between looks for a free connection, shortened from the deployed second: the looks are counted, not timed. */
const LOOK_MS = 50;

/** A fresh key of a new user, and a VerifiedKeys whose background writes are collected. */
async function fixture(connectionFree = () => file.env.pool.idleCount > 0) {
  const owner = await makeOwner(file.env.pool);
  const { key, token } = await createApiKey(file.db, {
    userId: owner.userId,
    tokenName: `k-${crypto.randomUUID()}`,
    loginType: TOKEN_LOGIN_TYPE,
    expiresAt: new Date(Date.now() + 3600_000),
  });
  const writes: Promise<unknown>[] = [];
  const keys = new VerifiedKeys({
    db: file.db,
    ttlMs: 5_000,
    now: () => new Date(),
    background: (work) => writes.push(work),
    connectionFree,
    usageLookMs: LOOK_MS,
    sessions: { idleMs: 86_400_000, maxMs: 2_592_000_000 },
  });
  return { owner, key, token, writes, keys };
}

const lastUsedAt = async (id: string) => (await getApiKey(file.db, id))?.lastUsedAt;

describe("VerifiedKeys: last_used_at", () => {
  it("is written once the request is done, not while it runs; within the minute, not again", async () => {
    const { owner, key, token, writes, keys } = await fixture();
    let during = -1;
    const userId = await keys.afterRequest(async () => {
      const caller = await keys.callerFor(token);
      await new Promise((resolve) => setTimeout(resolve, 20));
      during = writes.length;
      return caller.userId;
    });
    expect(userId).toBe(owner.userId);
    expect(during).toBe(0);
    expect(writes).toHaveLength(1);
    await Promise.all(writes);
    expect(await lastUsedAt(key.id)).toBeInstanceOf(Date);

    await keys.afterRequest(() => keys.callerFor(token));
    expect(writes).toHaveLength(1);
  });

  it("is written once for requests side by side", async () => {
    const { key, token, writes, keys } = await fixture();
    let authenticated!: () => void;
    const aAuthenticated = new Promise<void>((resolve) => (authenticated = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const a = keys.afterRequest(async () => {
      await keys.callerFor(token);
      authenticated();
      await gate;
    });
    await aAuthenticated;
    // B authenticates from the cache while A still runs: one use to record between them.
    await keys.afterRequest(() => keys.callerFor(token));
    release();
    await a;
    expect(writes).toHaveLength(1);
    await Promise.all(writes);
    expect(await lastUsedAt(key.id)).toBeInstanceOf(Date);
  });

  it("is written after a request that failed too", async () => {
    const { key, token, writes, keys } = await fixture();
    const failed = keys.afterRequest(async () => {
      await keys.callerFor(token);
      throw new Error("the command failed");
    });
    await expect(failed).rejects.toThrow("the command failed");
    expect(writes).toHaveLength(1);
    await Promise.all(writes);
    expect(await lastUsedAt(key.id)).toBeInstanceOf(Date);
  });

  it("waits for a free connection, a look at a time, and writes anyway after five looks", async () => {
    let looks = 0;
    const freeOnThirdLook = await fixture(() => ++looks >= 3);
    await freeOnThirdLook.keys.afterRequest(() => freeOnThirdLook.keys.callerFor(freeOnThirdLook.token));
    await Promise.all(freeOnThirdLook.writes);
    expect(looks).toBe(3);
    expect(await lastUsedAt(freeOnThirdLook.key.id)).toBeInstanceOf(Date);

    let neverFree = 0;
    const busy = await fixture(() => ++neverFree < 0);
    await busy.keys.afterRequest(() => busy.keys.callerFor(busy.token));
    await Promise.all(busy.writes);
    expect(neverFree).toBe(5);
    expect(await lastUsedAt(busy.key.id)).toBeInstanceOf(Date);
  });
});
