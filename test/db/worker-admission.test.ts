/**
 * acquireChat: the acquisition loop's lock-recheck-Acquire with the concurrent agent limiter in
 * the same transaction. Runs on a database of its own (see support/worker-env.ts): the limiter
 * counts owned chats deployment-wide.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ExecutionState } from "../../src/chatstate/index";
import { ChatStore, type TransactionObserver } from "../../src/chats/index";
import {
  acquireChat,
  acquireInCommand,
  commandPoolLock,
  PoolFullAtCommitError,
  type AcquireChatOptions,
  type AcquireOutcome,
  NO_SHARES,
  type PoolLimits,
} from "../../src/chat-worker/leases/index";
import { chatRow, history, makeChat, snapshotRows } from "./fixtures";
import {
  backdateHeartbeat,
  heartbeatsOf,
  holdAdmissionLocks,
  makeSubagentChat,
  makeWorkerEnv,
  waitForLockWaiters,
  worker,
  type WorkerEnv,
} from "./support/worker-env";
import { abandon, acquire, editMessage, sendMessage } from "../../src/chats/transitions/index";
import { apply } from "./support/apply";
import { recordQueries } from "./support/record-queries";
import type { ChatTx } from "../../src/chats/chat-tx";
import { ChatWorker } from "../../src/chat-worker/chat-worker";
import { attemptForCall } from "../../src/chat-worker/fenced-db";
import type { RunnerDeps } from "../../src/chat-worker/task-context";
import type { Config } from "../../src/config/env";
import { prefetchFor } from "../../src/chats/lock-prefetch";

const STALE_MS = 30_000;
const NO_SHARE_CONFIG = {
  CHAT_ROOT_CONCURRENCY_PER_USER: 0,
  CHAT_ROOT_CONCURRENCY_PER_ORGANIZATION: 0,
  CHAT_SUBAGENT_CONCURRENCY_PER_USER: 0,
  CHAT_SUBAGENT_CONCURRENCY_PER_ORGANIZATION: 0,
};
const UNLIMITED: PoolLimits = { root: 0, subagent: 0 };

let env: WorkerEnv;
beforeAll(async () => {
  env = await makeWorkerEnv("worker_admission");
});
afterAll(() => env?.close());

function options(limits: PoolLimits, extra: Partial<AcquireChatOptions> = {}): AcquireChatOptions {
  return { ...worker(), limits, shares: NO_SHARES, staleThresholdMs: STALE_MS, ...extra };
}

/** A store on the same pool and notifier that records every finished transaction. */
function observedStore(): { store: ChatStore; runs: Parameters<TransactionObserver>[0][] } {
  const runs: Parameters<TransactionObserver>[0][] = [];
  return { store: new ChatStore(env.pool, { notifier: env.notifier, observe: (r) => runs.push(r) }), runs };
}

/** Everything a refused or unneeded acquisition must leave alone: rows and notifications. */
async function observable(chatId: string) {
  return {
    rows: await snapshotRows(env.pool, chatId),
    updates: env.notifier.updatesFor(chatId).length,
    hints: env.notifier.hintsFor(chatId).length,
  };
}

function kinds(outcomes: AcquireOutcome[]): string[] {
  return outcomes.map((o) => (o.kind === "acquired" ? "acquired" : `${o.kind}:${o.reason}`)).sort();
}

describe("acquireChat on a runnable chat", () => {
  it("acquires an unowned chat in 3 statements: owner set, fresh heartbeat, one snapshot bump, chat:update without an ownership hint", async () => {
    const chat = await makeChat(env, "R0");
    const before = await chatRow(env, chat.chatId);
    const hintsBefore = env.notifier.hintsFor(chat.chatId).length;
    const { store, runs } = observedStore();
    const opts = options({ root: 1000, subagent: 1000 });

    const outcome = await acquireChat(store, chat.chatId, opts);

    expect(outcome).toMatchObject({ kind: "acquired", takenOver: false });
    if (outcome.kind !== "acquired") throw new Error("unreachable");
    expect(outcome.chat.workerId).toBe(opts.workerId);
    expect(outcome.chat.runnerId).toBe(opts.runnerId);
    expect(outcome.chat.snapshotVersion).toBe(Number(before.snapshot_version) + 1);
    const beats = await heartbeatsOf(env.pool, chat.chatId);
    expect(beats.map((b) => b.runnerId)).toEqual([opts.runnerId]);
    expect(beats[0]!.ageMs).toBeLessThan(5_000);
    expect(env.notifier.updatesFor(chat.chatId).at(-1)).toMatchObject({
      snapshot_version: outcome.chat.snapshotVersion,
      worker_id: opts.workerId,
      runner_id: opts.runnerId,
    });
    expect(env.notifier.hintsFor(chat.chatId)).toHaveLength(hintsBefore);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ committed: true, statements: 3 });
  });

  it("with withHistory, returns the history as the commit write read it, in the same 3 statements", async () => {
    const chat = await makeChat(env, "R1");
    const { store, runs } = observedStore();
    const outcome = await acquireChat(store, chat.chatId, options({ root: 1000, subagent: 1000 }, { withHistory: true }));
    if (outcome.kind !== "acquired") throw new Error(`not acquired: ${outcome.kind}`);
    const rows = await history(env, chat.chatId);
    expect(rows.length).toBeGreaterThan(1);
    expect(outcome.history).toEqual(rows);
    expect(runs[0]).toMatchObject({ committed: true, statements: 3 });
    // Without it, no history comes back.
    const other = await makeChat(env, "R0");
    const plain = await acquireChat(env.store, other.chatId, options({ root: 1000, subagent: 1000 }));
    expect(plain.kind === "acquired" && plain.history).toBe(undefined);
  });

  it.each(["R0", "R1", "I0", "I1", "A0", "A1"] as const)(
    "acquires an unowned %s chat without touching its execution state",
    async (state) => {
      const chat = await makeChat(env, state);
      const before = await chatRow(env, chat.chatId);
      const outcome = await acquireChat(env.store, chat.chatId, options({ root: 1000, subagent: 1000 }));
      expect(outcome.kind).toBe("acquired");
      const after = await chatRow(env, chat.chatId);
      expect([after.status, after.archived, after.history_version]).toEqual([before.status, before.archived, before.history_version]);
    },
  );

  it("acquires in 3 statements when the pool is unlimited and the chat had no owner, without taking the admission lock", async () => {
    const chat = await makeChat(env, "R0");
    const held = await holdAdmissionLocks(env.pool, ["root", "subagent"]);
    try {
      const { store, runs } = observedStore();
      const started = Date.now();
      const outcome = await acquireChat(store, chat.chatId, options(UNLIMITED, { lockTimeoutMs: 200 }));
      expect(outcome.kind).toBe("acquired");
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(runs[0]).toMatchObject({ committed: true, statements: 3 });
    } finally {
      await held.release();
    }
  });
});

describe("acquireChat when no acquisition is due", () => {
  it.each(["W", "E0", "E1", "XW", "XE0", "XE1", "Invalid"] as const)(
    "answers not_needed/not_runnable for a %s chat from the probe, writing and publishing nothing",
    async (state: ExecutionState | "Invalid") => {
      const chat = await makeChat(env, state);
      const before = await observable(chat.chatId);
      const { store, runs } = observedStore();
      const outcome = await acquireChat(store, chat.chatId, options({ root: 1, subagent: 1 }));
      expect(outcome).toEqual({ kind: "not_needed", reason: "not_runnable" });
      expect(await observable(chat.chatId)).toEqual(before);
      // The probe, and the row lock sent with it, which the probe's answer made match nothing.
      expect(runs[0]?.statements).toBe(2);
    },
  );

  it("answers not_needed/not_found for an id no chat has", async () => {
    expect(await acquireChat(env.store, randomUUID(), options({ root: 1, subagent: 1 }))).toEqual({
      kind: "not_needed",
      reason: "not_found",
    });
  });

  it("answers not_needed/owned for a chat whose lease is fresh, without waiting for the admission lock", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    const before = await observable(chat.chatId);
    const held = await holdAdmissionLocks(env.pool, ["root"]);
    try {
      const started = Date.now();
      const outcome = await acquireChat(env.store, chat.chatId, options({ root: 1000, subagent: 1000 }));
      expect(outcome).toEqual({ kind: "not_needed", reason: "owned" });
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await held.release();
    }
    expect(await observable(chat.chatId)).toEqual(before);
  });
});

describe("acquireChat taking over a lease", () => {
  it("takes over an owned chat whose heartbeat is stale: the new runner owns it with a fresh heartbeat", async () => {
    const chat = await makeChat(env, "R1", { owned: true });
    const old = await chatRow(env, chat.chatId);
    await backdateHeartbeat(env.pool, chat.chatId, STALE_MS + 5_000);
    const opts = options({ root: 1000, subagent: 1000 });

    const outcome = await acquireChat(env.store, chat.chatId, opts);

    expect(outcome).toMatchObject({ kind: "acquired", takenOver: true });
    const after = await chatRow(env, chat.chatId);
    expect([after.worker_id, after.runner_id]).toEqual([opts.workerId, opts.runnerId]);
    const beats = await heartbeatsOf(env.pool, chat.chatId);
    expect(beats.find((b) => b.runnerId === opts.runnerId)?.ageMs).toBeLessThan(5_000);
    expect(beats.find((b) => b.runnerId === old.runner_id)?.ageMs).toBeGreaterThan(STALE_MS);
  });

  it("does not take over an owned chat whose heartbeat is fresh (not_needed/owned), even just under the threshold", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    await backdateHeartbeat(env.pool, chat.chatId, STALE_MS - 5_000);
    const before = await observable(chat.chatId);
    expect(await acquireChat(env.store, chat.chatId, options({ root: 1000, subagent: 1000 }))).toEqual({
      kind: "not_needed",
      reason: "owned",
    });
    expect(await observable(chat.chatId)).toEqual(before);
  });

  it("rechecks the lease under the admission lock: of two takeovers queued on the lock, the second finds the first's fresh lease", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    await backdateHeartbeat(env.pool, chat.chatId, STALE_MS + 5_000);
    const held = await holdAdmissionLocks(env.pool, ["root"]);
    const first = options({ root: 1000, subagent: 1000 });
    const second = options({ root: 1000, subagent: 1000 });
    let outcomes: AcquireOutcome[];
    try {
      // Both probes see the stale lease; both queue for the pool lock.
      const a = acquireChat(env.store, chat.chatId, first);
      await waitForLockWaiters(env.pool, 1);
      const b = acquireChat(env.store, chat.chatId, second);
      await waitForLockWaiters(env.pool, 2);
      await held.release();
      outcomes = await Promise.all([a, b]);
    } finally {
      await held.release().catch(() => {});
    }
    expect(kinds(outcomes)).toEqual(["acquired", "not_needed:owned"]);
    const winner = outcomes[0]!.kind === "acquired" ? first : second;
    const after = await chatRow(env, chat.chatId);
    expect([after.worker_id, after.runner_id]).toEqual([winner.workerId, winner.runnerId]);
  });

  it("rechecks the lease under the admission lock: a renewal that lands while the takeover waits keeps the owner", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    const owner = await chatRow(env, chat.chatId);
    await backdateHeartbeat(env.pool, chat.chatId, STALE_MS + 5_000);
    // The lock holder plays the renewing tick: it holds the admission locks and extends the lease.
    const held = await holdAdmissionLocks(env.pool, ["root", "subagent"]);
    let outcome: AcquireOutcome;
    try {
      const pending = acquireChat(env.store, chat.chatId, options({ root: 1000, subagent: 1000 }));
      await waitForLockWaiters(env.pool, 1);
      await held.client.query(`UPDATE chat_heartbeats SET heartbeat_at = statement_timestamp() WHERE chat_id = $1 AND runner_id = $2`, [
        chat.chatId,
        owner.runner_id,
      ]);
      const before = await snapshotRows(env.pool, chat.chatId);
      await held.release();
      outcome = await pending;
      const rows = JSON.parse(await snapshotRows(env.pool, chat.chatId)) as { chat: unknown };
      expect(rows.chat).toEqual((JSON.parse(before) as { chat: unknown }).chat);
    } finally {
      await held.release().catch(() => {});
    }
    expect(outcome).toEqual({ kind: "not_needed", reason: "owned" });
    const after = await chatRow(env, chat.chatId);
    expect([after.worker_id, after.runner_id]).toEqual([owner.worker_id, owner.runner_id]);
  });
});

describe("acquireChat admission", () => {
  // Every test starts with every slot free: no lease is fresh without a heartbeat row.
  beforeEach(async () => {
    await env.pool.query(`DELETE FROM chat_heartbeats`);
  });

  it("with limit L, admits exactly L of L+1 concurrent acquisitions; the refused chat is untouched and unpublished", async () => {
    const L = 3;
    const chats = await Promise.all(Array.from({ length: L + 1 }, () => makeChat(env, "R0")));
    const before = new Map(await Promise.all(chats.map(async (c) => [c.chatId, await observable(c.chatId)] as const)));
    const { store, runs } = observedStore();

    const outcomes = await Promise.all(chats.map((c) => acquireChat(store, c.chatId, options({ root: L, subagent: 0 }))));

    expect(kinds(outcomes)).toEqual([...Array(L).fill("acquired"), "refused:capacity"]);
    const refusedIndex = outcomes.findIndex((o) => o.kind === "refused");
    const refused = chats[refusedIndex]!.chatId;
    expect(await observable(refused)).toEqual(before.get(refused));
    const refusedRun = runs.find((r) => !r.committed);
    expect(refusedRun?.statements).toBe(3);

    // One slot is released: the refused chat is admitted.
    const released = chats.find((_, i) => i !== refusedIndex)!.chatId;
    await apply(env.store, abandon, released);
    expect(await acquireChat(env.store, refused, options({ root: L, subagent: 0 }))).toMatchObject({ kind: "acquired", takenOver: false });
  });

  it("counts a slot free once its owner's heartbeat goes stale, and admits the waiting chat", async () => {
    const holder = await makeChat(env, "R0");
    const waiting = await makeChat(env, "R0");
    expect((await acquireChat(env.store, holder.chatId, options({ root: 1, subagent: 0 }))).kind).toBe("acquired");
    expect(await acquireChat(env.store, waiting.chatId, options({ root: 1, subagent: 0 }))).toEqual({
      kind: "refused",
      reason: "capacity",
    });
    await backdateHeartbeat(env.pool, holder.chatId, STALE_MS + 1_000);
    expect((await acquireChat(env.store, waiting.chatId, options({ root: 1, subagent: 0 }))).kind).toBe("acquired");
  });

  it("keeps a slot held by an owned chat whatever its execution state (an owned idle chat counts)", async () => {
    await makeChat(env, "W", { owned: true });
    const waiting = await makeChat(env, "R0");
    expect(await acquireChat(env.store, waiting.chatId, options({ root: 1, subagent: 0 }))).toEqual({
      kind: "refused",
      reason: "capacity",
    });
  });

  it("counts an owned chat once, by its current runner, even while a previous runner's heartbeat is still fresh", async () => {
    const holder = await makeChat(env, "R0");
    await apply(env.store, acquire, holder.chatId, worker());
    await apply(env.store, acquire, holder.chatId, worker());
    expect(await heartbeatsOf(env.pool, holder.chatId)).toHaveLength(2);
    const waiting = await makeChat(env, "R0");
    expect((await acquireChat(env.store, waiting.chatId, options({ root: 2, subagent: 0 }))).kind).toBe("acquired");
  });

  it("counts root and subagent chats in separate pools", async () => {
    const root = await makeChat(env, "R0");
    const sub1 = await makeSubagentChat(env);
    const sub2 = await makeSubagentChat(env);
    const limits = { root: 1, subagent: 1 };
    expect((await acquireChat(env.store, root.chatId, options(limits))).kind).toBe("acquired");
    expect((await acquireChat(env.store, sub1, options(limits))).kind).toBe("acquired");
    expect(await acquireChat(env.store, sub2, options(limits))).toEqual({ kind: "refused", reason: "capacity" });
    // An unlimited subagent pool admits it while the root pool stays limited.
    expect((await acquireChat(env.store, sub2, options({ root: 1, subagent: 0 }))).kind).toBe("acquired");
  });

  it("refuses with lock_timeout, writing nothing, when the pool's lock is not granted within lockTimeoutMs; the other pool is not blocked", async () => {
    const rootChat = await makeChat(env, "R0");
    const subChat = await makeSubagentChat(env);
    const before = await observable(rootChat.chatId);
    const held = await holdAdmissionLocks(env.pool, ["root"]);
    try {
      const started = Date.now();
      const outcome = await acquireChat(env.store, rootChat.chatId, options({ root: 5, subagent: 5 }, { lockTimeoutMs: 200 }));
      expect(outcome).toEqual({ kind: "refused", reason: "lock_timeout" });
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect((await acquireChat(env.store, subChat, options({ root: 5, subagent: 5 }, { lockTimeoutMs: 200 }))).kind).toBe("acquired");
    } finally {
      await held.release();
    }
    expect(await observable(rootChat.chatId)).toEqual(before);
  });
});

describe("acquireInCommand: Acquire inside a SendMessage on the chat", () => {
  const send = (text: string) => ({ content: [{ type: "text" as const, text }], busyBehavior: "queue" as const });

  /**
   * SendMessage on `chatId` with acquireInCommand in its transaction, after the admission
   * guard when `guarded` (as ChatWorker.update runs it); what it staged and what it read.
   */
  async function sendAndAcquire(chatId: string, limits: PoolLimits, opts: { guarded?: boolean; after?: () => void } = {}) {
    const { store, runs } = observedStore();
    const ids = worker();
    let collect: Awaited<ReturnType<typeof acquireInCommand>>;
    const guard = opts.guarded ? commandPoolLock(chatId, limits, NO_SHARES) : undefined;
    const fn = async (tx: ChatTx) => {
      await sendMessage(tx, send("go"));
      collect = await acquireInCommand(tx, {
        ...ids,
        limits,
        shares: NO_SHARES,
        staleThresholdMs: STALE_MS,
        poolLocked: guard?.locked ?? false,
      });
      opts.after?.();
    };
    const options = { prefetchTail: prefetchFor(sendMessage, send("go")) };
    const result = guard ? await store.updateGuarded(chatId, guard, fn, options) : await store.update(chatId, fn, options);
    if ("answer" in result) throw new Error("the admission guard answered");
    return { committed: result, read: collect?.startingRead(result.chat), staged: collect !== undefined, ids, runs, locked: guard?.locked };
  }

  it("acquires an idle chat in the send's own statements: owner, fresh heartbeat, no ownership hint, the runner's read", async () => {
    const chat = await makeChat(env, "W");
    const hintsBefore = env.notifier.hintsFor(chat.chatId).length;
    const alone = await makeChat(env, "W");
    const { runs: sendRuns, store } = observedStore();
    await store.update(alone.chatId, (tx) => sendMessage(tx, send("go")), { prefetchTail: prefetchFor(sendMessage, send("go")) });

    const { committed, read, ids, runs } = await sendAndAcquire(chat.chatId, UNLIMITED);
    expect(committed.chat).toMatchObject({ status: "running", workerId: ids.workerId, runnerId: ids.runnerId });
    expect((await heartbeatsOf(env.pool, chat.chatId)).map((b) => b.runnerId)).toEqual([ids.runnerId]);
    expect(env.notifier.hintsFor(chat.chatId)).toHaveLength(hintsBefore);
    // The new runner's first RecordGenerationAttempt rides too: its first model call records none.
    expect(committed.applied.map((a) => a.transition)).toEqual(["SendMessage", "Acquire", "RecordGenerationAttempt"]);
    expect(committed.chat.generationAttempt).toBe(1);
    expect(Number((await chatRow(env, chat.chatId)).generation_attempt)).toBe(1);
    expect(read?.recordedAttempt).toBe(1);
    // The read is the committed history, the sent message included, and the model candidates.
    expect(read?.history).toEqual(await history(env, chat.chatId));
    expect(read?.history.at(-1)?.content).toEqual(send("go").content);
    expect(read?.models).toEqual({ chosen: undefined, fallback: undefined, compaction: { ownerThresholdPercent: null, override: null } });
    // Not one statement more than the send alone.
    expect(runs[0]!.statements).toBe(sendRuns[0]!.statements);
  });

  it("the runner's first model call runs as the attempt the send recorded, writing nothing; the next records its own", async () => {
    const chat = await makeChat(env, "W");
    const { committed, read, ids } = await sendAndAcquire(chat.chatId, UNLIMITED);
    if (!read) throw new Error("the send did not acquire the chat");
    const fence = { chatId: chat.chatId, ...ids, historyVersion: committed.chat.historyVersion, status: "running" as const };
    const versionAtCommit = committed.chat.snapshotVersion;
    expect(await attemptForCall(env.store, fence, read)).toBe(1);
    expect(Number((await chatRow(env, chat.chatId)).snapshot_version)).toBe(versionAtCommit);
    // Used once: a retry from the same read applies RecordGenerationAttempt itself.
    expect(await attemptForCall(env.store, fence, read)).toBe(2);
    const row = await chatRow(env, chat.chatId);
    expect([Number(row.generation_attempt), Number(row.snapshot_version)]).toEqual([2, versionAtCommit + 1]);
  });

  it("acquires a chat an edit put back to running, in the edit's own statements: the runner's read is the edited history", async () => {
    const chat = await makeChat(env, "W");
    const { store } = observedStore();
    const ids = worker();
    let collect: Awaited<ReturnType<typeof acquireInCommand>>;
    const rec = recordQueries(env.pool);
    const committed = await store
      .update(chat.chatId, async (tx) => {
        await editMessage(tx, { messageId: chat.firstUserMessageId, content: [{ type: "text", text: "edited" }] });
        collect = await acquireInCommand(tx, { ...ids, limits: UNLIMITED, shares: NO_SHARES, staleThresholdMs: STALE_MS });
      })
      .finally(rec.stop);
    expect(committed.chat).toMatchObject({ status: "running", workerId: ids.workerId, runnerId: ids.runnerId });
    expect(committed.applied.map((a) => a.transition)).toEqual(["EditMessage", "Acquire", "RecordGenerationAttempt"]);
    // Counted from the edit's new history version: the cut and the INSERT reset it first.
    expect(committed.chat.generationAttempt).toBe(1);
    // The row lock, the cut, then the replacement's INSERT with the commit write that reads it back.
    expect(rec.sent).toHaveLength(3);
    const stored = await history(env, chat.chatId);
    expect(stored.filter((m) => !m.deleted).map((m) => m.content)).toEqual([[{ type: "text", text: "edited" }]]);
    // As the runner's read after a send: every row, the cut ones marked deleted.
    expect(collect?.startingRead(committed.chat).history).toEqual(stored);
  });

  it("stages nothing when the pool has a limit, the chat has an owner, or the send leaves it not runnable", async () => {
    const limited = await makeChat(env, "W");
    const staleOwned = await makeChat(env, "R0", { owned: true });
    await backdateHeartbeat(env.pool, staleOwned.chatId, 60_000);
    const cases: [string, PoolLimits][] = [
      [limited.chatId, { root: 1000, subagent: 1000 }],
      [staleOwned.chatId, UNLIMITED],
    ];
    for (const [chatId, limits] of cases) {
      const before = await chatRow(env, chatId);
      const { committed, staged } = await sendAndAcquire(chatId, limits);
      expect(staged).toBe(false);
      expect([committed.chat.workerId, committed.chat.runnerId]).toEqual([before.worker_id, before.runner_id]);
    }
    // Without the send, a W chat is not runnable.
    const idle = await makeChat(env, "W");
    const { store } = observedStore();
    const idleRun = await store.update(idle.chatId, async (tx) =>
      acquireInCommand(tx, { ...worker(), limits: UNLIMITED, shares: NO_SHARES, staleThresholdMs: STALE_MS }),
    );
    expect(idleRun.value).toBeUndefined();
    expect(idleRun.chat.workerId).toBeNull();
  });

  it("leaves nothing when the transaction rolls back after staging", async () => {
    const chat = await makeChat(env, "W");
    const before = await observable(chat.chatId);
    await expect(
      sendAndAcquire(chat.chatId, UNLIMITED, {
        after: () => {
          throw new Error("rolled back");
        },
      }),
    ).rejects.toThrow("rolled back");
    expect(await observable(chat.chatId)).toEqual(before);
    expect(await heartbeatsOf(env.pool, chat.chatId)).toEqual([]);
  });
  it("in a limited pool, takes the pool's lock in the row lock's round trip and counts the slots in the commit write", async () => {
    const chat = await makeChat(env, "W");
    const rec = recordQueries(env.pool);
    let outcome: Awaited<ReturnType<typeof sendAndAcquire>>;
    try {
      outcome = await sendAndAcquire(chat.chatId, { root: 1000, subagent: 1000 }, { guarded: true });
    } finally {
      rec.stop();
    }
    expect(outcome.locked).toBe(true);
    expect(outcome.committed.chat).toMatchObject({ workerId: outcome.ids.workerId, runnerId: outcome.ids.runnerId });
    // Two round trips, as the send alone: guard and row lock with BEGIN; the message's INSERT with
    // the commit write and COMMIT.
    expect(rec.sent).toHaveLength(2);
    expect(rec.sent[0]).toMatch(/pg_try_advisory_xact_lock/);
    expect(rec.sent[1]).toMatch(/^INSERT INTO chat_messages[\s\S]*count\(\*\)::int FROM chat_heartbeats h JOIN chats c[\s\S]*COMMIT$/);
  });

  it("in a limited pool whose lock is held, leaves the chat to the acquisition loop without waiting", async () => {
    const chat = await makeChat(env, "W");
    const held = await holdAdmissionLocks(env.pool, ["root"]);
    try {
      const { committed, staged, locked } = await sendAndAcquire(chat.chatId, { root: 1000, subagent: 1000 }, { guarded: true });
      expect([locked, staged]).toEqual([false, false]);
      expect(committed.chat.status).toBe("running");
      expect(committed.chat.workerId).toBeNull();
    } finally {
      await held.release();
    }
  });

  it("in a full pool, fails the whole send; the worker then sends without acquiring, and the hint wakes the loop", async () => {
    // A fresh lease in the root pool, and a limit of 1: full.
    await makeChat(env, "R0", { owned: true });
    const chat = await makeChat(env, "W");
    const before = await observable(chat.chatId);
    await expect(sendAndAcquire(chat.chatId, { root: 1, subagent: 1 }, { guarded: true })).rejects.toBeInstanceOf(PoolFullAtCommitError);
    expect(await observable(chat.chatId)).toEqual(before);

    const config = {
      ...NO_SHARE_CONFIG,
      CHAT_ROOT_CONCURRENCY: 1,
      CHAT_SUBAGENT_CONCURRENCY: 1,
      CHAT_STALE_THRESHOLD_MS: STALE_MS,
    } as Config;
    const host = { keepAlive: () => {}, scheduleTick: () => {}, slotReleased: () => {}, leaseTaken: () => {}, leaseEnded: () => {} };
    const chatWorker = new ChatWorker(chat.chatId, { store: env.store, config } as unknown as RunnerDeps, host);
    const sent = await chatWorker.update(chat.chatId, (tx) => sendMessage(tx, send("go")), {
      prefetchTail: prefetchFor(sendMessage, send("go")),
    });
    expect(sent.value.queued).toBe(false);
    expect(sent.chat).toMatchObject({ status: "running", workerId: null });
    expect(chatWorker.runner).toBeNull();
    expect(env.notifier.hintsFor(chat.chatId)).toHaveLength(before.hints + 1);
  });
});

describe("acquireChat reclaiming the lease a restarted object's previous instance left", () => {
  it("takes over a fresh lease held under the named worker id at once, and only that one", async () => {
    const chat = await makeChat(env, "R0");
    const previous = worker();
    expect((await acquireChat(env.store, chat.chatId, options(UNLIMITED, previous))).kind).toBe("acquired");
    // Without reclaimFrom, or naming another worker, a fresh lease is not the new instance's to take.
    expect(await acquireChat(env.store, chat.chatId, options(UNLIMITED))).toEqual({ kind: "not_needed", reason: "owned" });
    expect(await acquireChat(env.store, chat.chatId, options(UNLIMITED, { reclaimFrom: randomUUID() }))).toEqual({
      kind: "not_needed",
      reason: "owned",
    });
    const next = worker();
    const reclaimed = await acquireChat(env.store, chat.chatId, options(UNLIMITED, { ...next, reclaimFrom: previous.workerId }));
    expect(reclaimed).toMatchObject({ kind: "acquired", takenOver: true });
    const row = await chatRow(env, chat.chatId);
    expect([row.worker_id, row.runner_id]).toEqual([next.workerId, next.runnerId]);
    // The previous runner is fenced out: the chat's lease is the new runner's.
    expect((await heartbeatsOf(env.pool, chat.chatId)).map((h) => h.runnerId)).toContain(next.runnerId);
  });

  it("still counts the pool when it reclaims", async () => {
    await env.pool.query(`DELETE FROM chat_heartbeats`);
    const holder = await makeChat(env, "R0");
    const mine = await makeChat(env, "R0");
    const previous = worker();
    expect((await acquireChat(env.store, mine.chatId, options({ root: 2, subagent: 0 }, previous))).kind).toBe("acquired");
    expect((await acquireChat(env.store, holder.chatId, options({ root: 2, subagent: 0 }))).kind).toBe("acquired");
    // Two slots, both held: the reclaim excludes its own chat from the count, so it fits; a third chat does not.
    const reclaimed = await acquireChat(env.store, mine.chatId, options({ root: 2, subagent: 0 }, { reclaimFrom: previous.workerId }));
    expect(reclaimed.kind).toBe("acquired");
    const third = await makeChat(env, "R0");
    expect(await acquireChat(env.store, third.chatId, options({ root: 2, subagent: 0 }))).toEqual({ kind: "refused", reason: "capacity" });
  });
});
