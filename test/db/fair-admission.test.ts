/**
 * Fair admission (docs/fairness.md): inside a pool, one user and one organization hold at most
 * their share of slots, and the waiting are woken in fair order across owners. On a database of
 * its own: the counts and the wake-up read span the whole deployment.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  acquireChat,
  findRunnableUnowned,
  findWaitingForSlot,
  type PoolLimits,
  type TenantShares,
  updateAcquiringInCommand,
} from "../../src/chat-worker/leases/index";
import { abandon, sendMessage } from "../../src/chats/transitions/index";
import { type Env, makeChat, makeOwner, type Owner, text } from "./fixtures";
import { apply } from "./support/apply";
import { makeWorkerEnv, worker, type WorkerEnv } from "./support/worker-env";

const STALE_MS = 30_000;
const POOL: PoolLimits = { root: 5, subagent: 10 };

let env: WorkerEnv;
beforeAll(async () => {
  env = await makeWorkerEnv("fair_admission");
});
afterAll(() => env?.close());
beforeEach(async () => {
  // Each test starts with every slot free and nothing waiting.
  await env.pool.query(`DELETE FROM chat_heartbeats`);
  await env.pool.query(`UPDATE chats SET archived = true`);
});

function shares(perUser: number, perOrganization: number): TenantShares {
  return { perUser: { root: perUser, subagent: perUser }, perOrganization: { root: perOrganization, subagent: perOrganization } };
}

/** Another member of `owner`'s organization. */
async function colleagueOf(owner: Owner): Promise<Owner> {
  const tag = randomUUID();
  const user = await env.pool.query<{ id: string }>(`INSERT INTO users (email, username) VALUES ($1, $2) RETURNING id`, [
    `${tag}@example.com`,
    `u-${tag}`,
  ]);
  await env.pool.query(`INSERT INTO organization_members (organization_id, user_id, role) VALUES ($1, $2, 'member')`, [
    owner.organizationId,
    user.rows[0]!.id,
  ]);
  return { userId: user.rows[0]!.id, organizationId: owner.organizationId };
}

/** `n` runnable, unowned root chats of `owner`, oldest first. */
async function waitingChats(owner: Owner, n: number): Promise<string[]> {
  const tenant: Env = { ...env, owner };
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await makeChat(tenant, "R0")).chatId);
  return ids;
}

const acquire = (chatId: string, s: TenantShares) =>
  acquireChat(env.store, chatId, { ...worker(), limits: POOL, shares: s, staleThresholdMs: STALE_MS });

describe("a user's share of a pool", () => {
  it("refuses the user's chat beyond the share while the pool has room, and admits another user's first chat", async () => {
    const alice = await makeOwner(env.pool);
    const bob = await makeOwner(env.pool);
    const [a1, a2, a3] = await waitingChats(alice, 3);
    const [b1] = await waitingChats(bob, 1);

    expect((await acquire(a1!, shares(2, 0))).kind).toBe("acquired");
    expect((await acquire(a2!, shares(2, 0))).kind).toBe("acquired");
    const before = await env.pool.query(`SELECT worker_id, snapshot_version FROM chats WHERE id = $1`, [a3]);
    expect(await acquire(a3!, shares(2, 0))).toEqual({ kind: "refused", reason: "user_share" });
    // Refused: nothing written.
    expect((await env.pool.query(`SELECT worker_id, snapshot_version FROM chats WHERE id = $1`, [a3])).rows).toEqual(before.rows);
    expect((await acquire(b1!, shares(2, 0))).kind).toBe("acquired");

    // One of Alice's turns ends: her waiting chat fits her share again.
    await apply(env.store, abandon, a1!);
    expect((await acquire(a3!, shares(2, 0))).kind).toBe("acquired");
  });

  it("counts only the chat's own pool: a user at their root share still gets subagent slots", async () => {
    const alice = await makeOwner(env.pool);
    const [a1, a2] = await waitingChats(alice, 2);
    expect((await acquire(a1!, shares(1, 0))).kind).toBe("acquired");
    expect(await acquire(a2!, shares(1, 0))).toEqual({ kind: "refused", reason: "user_share" });
    const parent = await makeChat({ ...env, owner: alice }, "W");
    const sub = await env.store.create({
      organizationId: alice.organizationId,
      ownerId: alice.userId,
      parentChatId: parent.chatId,
      content: text("sub task"),
    });
    expect((await acquire(sub.chat.id, shares(1, 0))).kind).toBe("acquired");
  });

  it("holds inside a command's own acquisition: the send commits, the turn waits for the share", async () => {
    const alice = await makeOwner(env.pool);
    const [a1] = await waitingChats(alice, 1);
    expect((await acquire(a1!, shares(1, 0))).kind).toBe("acquired");
    const idle = await makeChat({ ...env, owner: alice }, "W");
    const admission = { ...worker(), limits: POOL, shares: shares(1, 0), staleThresholdMs: STALE_MS };
    const sent = await updateAcquiringInCommand(env.store, idle.chatId, admission, (tx) =>
      sendMessage(tx, { content: text("one more"), busyBehavior: "queue" }),
    );
    expect(sent.acquired).toBeUndefined();
    expect(sent.chat.status).toBe("running");
    expect(sent.chat.workerId).toBeNull();
  });
});

describe("an organization's share of a pool", () => {
  it("refuses a third colleague once the organization holds its share, and admits another organization", async () => {
    const alice = await makeOwner(env.pool);
    const carol = await colleagueOf(alice);
    const dave = await colleagueOf(alice);
    const bob = await makeOwner(env.pool);
    const [a1] = await waitingChats(alice, 1);
    const [c1] = await waitingChats(carol, 1);
    const [d1] = await waitingChats(dave, 1);
    const [b1] = await waitingChats(bob, 1);

    expect((await acquire(a1!, shares(0, 2))).kind).toBe("acquired");
    expect((await acquire(c1!, shares(0, 2))).kind).toBe("acquired");
    expect(await acquire(d1!, shares(0, 2))).toEqual({ kind: "refused", reason: "organization_share" });
    expect((await acquire(b1!, shares(0, 2))).kind).toBe("acquired");
  });

  it("admits exactly the share when the organization's chats race for it", async () => {
    const alice = await makeOwner(env.pool);
    const colleagues = [alice, ...(await Promise.all([1, 2, 3, 4, 5].map(() => colleagueOf(alice))))];
    const chats = (await Promise.all(colleagues.map((c) => waitingChats(c, 1)))).flat();
    const outcomes = await Promise.all(chats.map((id) => acquire(id, shares(0, 3))));
    const kinds = outcomes.map((o) => (o.kind === "acquired" ? "acquired" : `${o.kind}:${o.reason}`)).sort();
    // Admission serializes on the pool's lock; a race that lost the lock wait is refused for it.
    expect(kinds.filter((k) => k === "acquired")).toHaveLength(3);
    expect(kinds.filter((k) => k !== "acquired").every((k) => k === "refused:organization_share" || k === "refused:lock_timeout")).toBe(
      true,
    );
  });
});

describe("waking the waiting in fair order", () => {
  it("puts each owner's oldest chat first, one round of owners after another", async () => {
    const alice = await makeOwner(env.pool);
    const bob = await makeOwner(env.pool);
    const [a1, a2, a3] = await waitingChats(alice, 3);
    const [b1] = await waitingChats(bob, 1);
    const order = await findRunnableUnowned(env.pool, { staleThresholdMs: STALE_MS, limit: 10, pool: "root" });
    expect(order).toEqual([a1, b1, a2, a3]);
  });

  it("leaves out the chats of an owner at their share, so a released slot wakes someone it can admit", async () => {
    const alice = await makeOwner(env.pool);
    const bob = await makeOwner(env.pool);
    const [a1, a2, a3] = await waitingChats(alice, 3);
    const [b1] = await waitingChats(bob, 1);
    expect((await acquire(a1!, shares(1, 0))).kind).toBe("acquired");

    const admission = { slots: POOL.root, perUser: 1, perOrganization: 0 };
    const woken = await findWaitingForSlot(env.pool, { pool: "root", admission, limit: 10, staleThresholdMs: STALE_MS });
    expect(woken).toEqual([b1]);
    expect(woken).not.toContain(a2);
    expect(woken).not.toContain(a3);
  });
});
