/**
 * The wake-up reads (findRunnableUnowned / findWaitingForSlot) and the sync loop's read
 * (readChatsForSync). On a database of its own: the sweep reads every chat of the deployment.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquireChat, findRunnableUnowned, findWaitingForSlot, NO_SHARES, readChatsForSync } from "../../src/chat-worker/leases/index";
import { chatRow, makeChat } from "./fixtures";
import { backdateHeartbeat, makeSubagentChat, makeWorkerEnv, worker, type WorkerEnv } from "./support/worker-env";
import { abandon, acquire } from "../../src/chats/transitions/index";
import { apply } from "./support/apply";
import { wakeWaiting } from "../../durable-objects/chat-object/wake-waiting";

const STALE_MS = 30_000;
const ONE_SLOT = { slots: 1, perUser: 0, perOrganization: 0 };

let env: WorkerEnv;
beforeAll(async () => {
  env = await makeWorkerEnv("worker_sweep");
});
afterAll(() => env?.close());

async function updatedAt(ids: readonly string[]): Promise<Map<string, number>> {
  const { rows } = await env.pool.query<{ id: string; t: string }>(
    `SELECT id, (extract(epoch FROM updated_at) * 1000000)::bigint::text AS t FROM chats WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, Number(r.t)]));
}

/** Two subagent chats in a pool of one slot: `holder` acquired it, `waiting` was refused for capacity. */
async function chatWaitingForSlot() {
  await env.pool.query(`DELETE FROM chat_heartbeats`); // every slot free
  const holder = await makeSubagentChat(env);
  const waiting = await makeSubagentChat(env);
  const limits = { root: 0, subagent: 1 };
  expect((await acquireChat(env.store, holder, { ...worker(), limits, shares: NO_SHARES, staleThresholdMs: STALE_MS })).kind).toBe(
    "acquired",
  );
  expect((await acquireChat(env.store, waiting, { ...worker(), limits, shares: NO_SHARES, staleThresholdMs: STALE_MS })).kind).toBe(
    "refused",
  );
  return { holder, waiting, limits };
}

describe("findRunnableUnowned", () => {
  it("finds runnable chats with no owner or a stale lease, and skips freshly owned, idle, errored, archived and invalid ones", async () => {
    const unowned = await Promise.all((["R0", "R1", "I0", "I1", "A0", "A1"] as const).map((s) => makeChat(env, s)));
    const staleOwned = await makeChat(env, "R0", { owned: true });
    await backdateHeartbeat(env.pool, staleOwned.chatId, STALE_MS + 1_000);
    const staleInterrupting = await makeChat(env, "I1", { owned: true });
    await backdateHeartbeat(env.pool, staleInterrupting.chatId, STALE_MS + 1_000);
    const freshOwned = await Promise.all((["R0", "I0", "A1"] as const).map((s) => makeChat(env, s, { owned: true })));
    const agingOwned = await makeChat(env, "R1", { owned: true });
    await backdateHeartbeat(env.pool, agingOwned.chatId, STALE_MS - 5_000);
    const notRunnable = await Promise.all((["W", "E0", "E1", "XW", "XE0", "XE1", "Invalid"] as const).map((s) => makeChat(env, s)));
    const idleOwned = await makeChat(env, "W", { owned: true });
    await backdateHeartbeat(env.pool, idleOwned.chatId, STALE_MS + 1_000);

    const found = new Set(await findRunnableUnowned(env.pool, { staleThresholdMs: STALE_MS, limit: 1_000 }));

    for (const c of [...unowned, staleOwned, staleInterrupting]) expect(found, `expected ${c.chatId}`).toContain(c.chatId);
    for (const c of [...freshOwned, agingOwned, ...notRunnable, idleOwned]) expect(found, `unexpected ${c.chatId}`).not.toContain(c.chatId);
  });

  it("judges the lease by the current runner's heartbeat, not a previous runner's", async () => {
    const chat = await makeChat(env, "R0");
    const previous = worker();
    const current = worker();
    await apply(env.store, acquire, chat.chatId, previous);
    await apply(env.store, acquire, chat.chatId, current);
    await backdateHeartbeat(env.pool, chat.chatId, STALE_MS + 1_000, current.runnerId);

    expect(await findRunnableUnowned(env.pool, { staleThresholdMs: STALE_MS, limit: 1_000 })).toContain(chat.chatId);
  });

  it("returns the oldest updated_at first (one owner's chats), and at most `limit` ids", async () => {
    const chats = [];
    for (let i = 0; i < 4; i++) chats.push(await makeChat(env, "R0"));
    // Touch the first one: it becomes the newest.
    await env.pool.query(`UPDATE chats SET updated_at = now() + interval '1 hour' WHERE id = $1`, [chats[0]!.chatId]);

    const all = await findRunnableUnowned(env.pool, { staleThresholdMs: STALE_MS, limit: 1_000 });
    const times = await updatedAt(all);
    const ordered = [...all].sort((a, b) => times.get(a)! - times.get(b)! || (a < b ? -1 : 1));
    expect(all).toEqual(ordered);
    expect(all.at(-1)).toBe(chats[0]!.chatId);

    expect(await findRunnableUnowned(env.pool, { staleThresholdMs: STALE_MS, limit: 2 })).toEqual(all.slice(0, 2));
    expect(await findRunnableUnowned(env.pool, { staleThresholdMs: STALE_MS, limit: 0 })).toEqual([]);
  });

  it("filters by pool: root chats have no parent, subagent chats have one", async () => {
    const root = await makeChat(env, "R0");
    const sub = await makeSubagentChat(env);
    const roots = await findRunnableUnowned(env.pool, { staleThresholdMs: STALE_MS, limit: 1_000, pool: "root" });
    const subs = await findRunnableUnowned(env.pool, { staleThresholdMs: STALE_MS, limit: 1_000, pool: "subagent" });
    expect(roots).toContain(root.chatId);
    expect(roots).not.toContain(sub);
    expect(subs).toContain(sub);
    expect(subs).not.toContain(root.chatId);
  });

  it("lists a chat refused for capacity as waiting for a slot of its pool until it is admitted", async () => {
    const { holder, waiting, limits } = await chatWaitingForSlot();

    const waitingIds = await findWaitingForSlot(env.pool, {
      pool: "subagent",
      admission: ONE_SLOT,
      limit: 1_000,
      staleThresholdMs: STALE_MS,
    });
    expect(waitingIds).toContain(waiting);
    expect(waitingIds).not.toContain(holder);

    await apply(env.store, abandon, holder);
    expect((await acquireChat(env.store, waiting, { ...worker(), limits, shares: NO_SHARES, staleThresholdMs: STALE_MS })).kind).toBe(
      "acquired",
    );
    expect(
      await findWaitingForSlot(env.pool, { pool: "subagent", admission: ONE_SLOT, limit: 1_000, staleThresholdMs: STALE_MS }),
    ).not.toContain(waiting);
  });
});

describe("wakeWaiting", () => {
  it("wakes a chat waiting for a slot of a limited pool, and none when the pool has no limit", async () => {
    const { holder, waiting } = await chatWaitingForSlot();
    const woken = async (limit: number) => {
      const ids: string[] = [];
      const admission = { slots: limit, perUser: 0, perOrganization: 0 };
      await wakeWaiting(env.pool, { isRoot: false, admission, staleThresholdMs: STALE_MS, ownChatId: holder, wake: (id) => ids.push(id) });
      return ids;
    };
    expect(await woken(1)).toContain(waiting);
    expect(await woken(0)).toEqual([]);
    await apply(env.store, abandon, holder);
  });
});

describe("readChatsForSync", () => {
  it("returns the runner event's fields for each known chat and omits unknown ones", async () => {
    const owned = await makeChat(env, "R1", { owned: true });
    const idle = await makeChat(env, "XW");
    const rows = await readChatsForSync(env.pool, [owned.chatId, idle.chatId, randomUUID(), owned.chatId]);
    expect(rows).toHaveLength(2);
    const byId = new Map(rows.map((r) => [r.chatId, r]));
    for (const id of [owned.chatId, idle.chatId]) {
      const raw = await chatRow(env, id);
      expect(byId.get(id)).toEqual({
        chatId: id,
        workerId: raw.worker_id,
        runnerId: raw.runner_id,
        snapshotVersion: Number(raw.snapshot_version),
        historyVersion: Number(raw.history_version),
        generationAttempt: Number(raw.generation_attempt),
        archived: raw.archived,
        status: raw.status,
      });
    }
    expect(byId.get(owned.chatId)?.workerId).not.toBeNull();
    expect(byId.get(idle.chatId)).toMatchObject({ workerId: null, archived: true, status: "waiting" });
    expect(typeof byId.get(owned.chatId)?.snapshotVersion).toBe("number");
  });

  it("answers no ids with no rows", async () => {
    expect(await readChatsForSync(env.pool, [])).toEqual([]);
  });
});
