/**
 * renewHeartbeats and cleanupHeartbeats: the spec's heartbeat loop (renew fresh leases of their
 * current runners under the admission locks, never revive a stale one, report the rest lost; a
 * tick that cannot finish renews nothing) and cleanup loop. On a database of its own: cleanup
 * deletes every stale heartbeat, and the test holds the deployment-wide admission locks.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TransactionObserver } from "../../src/chats/index";
import { cleanupHeartbeats, renewHeartbeats, runnerKey, type RunnerRef } from "../../src/chat-worker/leases/index";
import { chatRow, makeChat } from "./fixtures";
import {
  backdateHeartbeat,
  heartbeatsOf,
  holdAdmissionLocks,
  makeWorkerEnv,
  lockWaiters,
  waitForLockWaiters,
  worker,
  type WorkerEnv,
} from "./support/worker-env";
import { abandon, acquire } from "../../src/chats/transitions/index";
import { apply } from "./support/apply";

const STALE_MS = 30_000;
const TICK_MS = 10_000;

let env: WorkerEnv;
beforeAll(async () => {
  env = await makeWorkerEnv("worker_heartbeats");
});
afterAll(() => env?.close());

/** An R0 chat owned by a fresh runner (through the Acquire transition). */
async function ownedChat(): Promise<RunnerRef & { workerId: string }> {
  const chat = await makeChat(env, "R0");
  const w = worker();
  await apply(env.store, acquire, chat.chatId, w);
  return { chatId: chat.chatId, ...w };
}

async function ageOf(ref: RunnerRef): Promise<number | undefined> {
  return (await heartbeatsOf(env.pool, ref.chatId)).find((b) => b.runnerId === ref.runnerId)?.ageMs;
}

const renew = (runners: RunnerRef[], extra: { tickTimeoutMs?: number; observe?: TransactionObserver } = {}) =>
  renewHeartbeats(env.pool, runners, { staleThresholdMs: STALE_MS, tickTimeoutMs: TICK_MS, ...extra });

describe("renewHeartbeats", () => {
  it("extends the fresh leases of the current runners in 2 statements, without a snapshot bump or a notification", async () => {
    const a = await ownedChat();
    const b = await ownedChat();
    await backdateHeartbeat(env.pool, a.chatId, 10_000);
    await backdateHeartbeat(env.pool, b.chatId, 20_000);
    const snapshots = [(await chatRow(env, a.chatId)).snapshot_version, (await chatRow(env, b.chatId)).snapshot_version];
    const updates = env.notifier.updates.length;
    const runs: Parameters<TransactionObserver>[0][] = [];

    const result = await renew([a, b], { observe: (r) => runs.push(r) });

    expect([...result.renewed].sort()).toEqual([runnerKey(a.chatId, a.runnerId), runnerKey(b.chatId, b.runnerId)].sort());
    expect(result.lost).toEqual([]);
    expect(await ageOf(a)).toBeLessThan(5_000);
    expect(await ageOf(b)).toBeLessThan(5_000);
    expect([(await chatRow(env, a.chatId)).snapshot_version, (await chatRow(env, b.chatId)).snapshot_version]).toEqual(snapshots);
    expect(env.notifier.updates.length).toBe(updates);
    expect(runs).toEqual([expect.objectContaining({ committed: true, statements: 2 })]);
  });

  it("never revives a stale lease: its runner is reported lost and its heartbeat stays where it was", async () => {
    const fresh = await ownedChat();
    const stale = await ownedChat();
    await backdateHeartbeat(env.pool, stale.chatId, STALE_MS + 1_000);

    const result = await renew([fresh, stale]);

    expect([...result.renewed]).toEqual([runnerKey(fresh.chatId, fresh.runnerId)]);
    expect(result.lost).toEqual([stale]);
    expect(await ageOf(stale)).toBeGreaterThan(STALE_MS);
  });

  it("reports a runner lost once its chat was abandoned, and leaves its heartbeat alone", async () => {
    const ref = await ownedChat();
    await backdateHeartbeat(env.pool, ref.chatId, 10_000);
    await apply(env.store, abandon, ref.chatId);

    const result = await renew([ref]);

    expect(result.renewed.size).toBe(0);
    expect(result.lost).toEqual([ref]);
    expect(await ageOf(ref)).toBeGreaterThanOrEqual(10_000);
  });

  it("reports the previous runner lost and renews the new one after another runner acquired the chat", async () => {
    const old = await ownedChat();
    const next = worker();
    await apply(env.store, acquire, old.chatId, next);
    const current = { chatId: old.chatId, runnerId: next.runnerId };
    await backdateHeartbeat(env.pool, old.chatId, 10_000);

    const result = await renew([old, current]);

    expect([...result.renewed]).toEqual([runnerKey(current.chatId, current.runnerId)]);
    expect(result.lost).toEqual([old]);
    expect(await ageOf(old)).toBeGreaterThanOrEqual(10_000);
    expect(await ageOf(current)).toBeLessThan(5_000);
  });

  it("reports runners of deleted or unknown chats lost", async () => {
    const ref = { chatId: randomUUID(), runnerId: randomUUID() };
    const result = await renew([ref]);
    expect(result).toEqual({ renewed: new Set(), lost: [ref] });
  });

  it("answers an empty tick without a transaction", async () => {
    const runs: unknown[] = [];
    expect(await renew([], { observe: (r) => runs.push(r) })).toEqual({ renewed: new Set(), lost: [] });
    expect(runs).toEqual([]);
  });

  it.each([["root"], ["subagent"]] as const)(
    "throws and renews nothing when the %s admission lock is not granted within the tick's timeout",
    async (pool) => {
      const ref = await ownedChat();
      await backdateHeartbeat(env.pool, ref.chatId, 10_000);
      const held = await holdAdmissionLocks(env.pool, [pool]);
      try {
        const started = Date.now();
        await expect(renew([ref], { tickTimeoutMs: 300 })).rejects.toThrow();
        expect(Date.now() - started).toBeLessThan(3_000);
        // Past the server-side lock_timeout too: the tick's transaction is gone, not waiting, so
        // nothing is left to renew once the locks are free.
        await expect.poll(() => lockWaiters(env.pool)).toBe(0);
      } finally {
        await held.release();
      }
      expect(await ageOf(ref)).toBeGreaterThanOrEqual(10_000);
    },
  );

  it("does not wait for another chat's renewal in flight, which holds the same locks shared", async () => {
    const ref = await ownedChat();
    await backdateHeartbeat(env.pool, ref.chatId, 10_000);
    const inFlight = await holdAdmissionLocks(env.pool, ["root", "subagent"], "shared");
    try {
      // A tick that had to wait would time out here and renew nothing.
      const result = await renew([ref], { tickTimeoutMs: 2_000 });
      expect(result.renewed.has(runnerKey(ref.chatId, ref.runnerId))).toBe(true);
      expect(await ageOf(ref)).toBeLessThan(2_000);
    } finally {
      await inFlight.release();
    }
  });

  it("reads the renewal time after the admission locks are granted", async () => {
    const ref = await ownedChat();
    const held = await holdAdmissionLocks(env.pool, ["root", "subagent"]);
    let releasedAt: Date;
    let pending: ReturnType<typeof renew>;
    try {
      pending = renew([ref]);
      await waitForLockWaiters(env.pool, 1);
      // Read after the renewal was seen waiting: a time taken when its statement began is earlier.
      const { rows } = await held.client.query<{ at: Date }>(`SELECT clock_timestamp() AS at`);
      releasedAt = new Date(rows[0]!.at);
    } finally {
      await held.release();
    }
    const result = await pending;
    expect(result.renewed.has(runnerKey(ref.chatId, ref.runnerId))).toBe(true);
    const beat = (await heartbeatsOf(env.pool, ref.chatId))[0]!;
    expect(beat.heartbeatAt.getTime()).toBeGreaterThanOrEqual(releasedAt.getTime());
  });
});

describe("cleanupHeartbeats", () => {
  it("deletes only heartbeats older than the stale threshold and returns how many", async () => {
    await cleanupHeartbeats(env.pool, STALE_MS); // leftovers of earlier tests
    const stale1 = await ownedChat();
    const stale2 = await ownedChat();
    const aging = await ownedChat();
    const fresh = await ownedChat();
    await backdateHeartbeat(env.pool, stale1.chatId, STALE_MS + 1_000);
    await backdateHeartbeat(env.pool, stale2.chatId, 3 * STALE_MS);
    await backdateHeartbeat(env.pool, aging.chatId, STALE_MS - 5_000);

    expect(await cleanupHeartbeats(env.pool, STALE_MS)).toBe(2);

    expect(await heartbeatsOf(env.pool, stale1.chatId)).toEqual([]);
    expect(await heartbeatsOf(env.pool, stale2.chatId)).toEqual([]);
    expect(await heartbeatsOf(env.pool, aging.chatId)).toHaveLength(1);
    expect(await heartbeatsOf(env.pool, fresh.chatId)).toHaveLength(1);
    // The chats stay owned by their (now row-less, so stale) leases: a takeover may acquire them.
    expect((await chatRow(env, stale1.chatId)).worker_id).toBe(stale1.workerId);
    expect(await cleanupHeartbeats(env.pool, STALE_MS)).toBe(0);
  });
});
