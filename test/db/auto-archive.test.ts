/**
 * The spec's "Auto-archive loop" (src/chats/auto-archive.ts, src/cron/auto-archive.ts): who
 * is a candidate, the recheck under the family lock, days = 0, bounded batches. On a database of
 * its own: the candidate read sees every chat of the deployment.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTO_ARCHIVE_BATCH, autoArchiveTick } from "../../src/cron/auto-archive";
import { archiveIfCandidate, dayCutoff, findAutoArchiveCandidates } from "../../src/chats/auto-archive";
import { sendMessage } from "../../src/chats/transitions/send-message";
import { makeChat, stateOf, text } from "./fixtures";
import { makeWorkerEnv, type WorkerEnv } from "./support/worker-env";
import { commitStep, finishTurn } from "../../src/chats/transitions/index";
import { apply } from "./support/apply";
import { prefetchFor } from "../../src/chats/lock-prefetch";

const DAYS = 3;
const DAY_MS = 24 * 60 * 60 * 1000;

let env: WorkerEnv;
beforeAll(async () => {
  env = await makeWorkerEnv("auto_archive");
});
afterAll(() => env?.close());

/** Moves chats' creation (and, unless told otherwise, their messages) `days` into the past. */
async function backdate(chatIds: readonly string[], days: number, opts: { messages?: boolean; chats?: boolean } = {}): Promise<void> {
  const interval = `${days} days`;
  if (opts.chats ?? true)
    await env.pool.query(`UPDATE chats SET created_at = now() - $2::interval WHERE id = ANY($1::uuid[])`, [chatIds, interval]);
  if (opts.messages ?? true)
    await env.pool.query(`UPDATE chat_messages SET created_at = now() - $2::interval WHERE chat_id = ANY($1::uuid[])`, [chatIds, interval]);
}

/** A child of `rootId`, finished (W), through real transitions. */
async function makeChild(rootId: string): Promise<string> {
  const child = await env.store.create({
    organizationId: env.owner.organizationId,
    ownerId: env.owner.userId,
    parentChatId: rootId,
    content: text("sub task"),
  });
  const id = child.chat.id;
  await apply(env.store, commitStep, id, { messages: [{ role: "assistant", content: text("done") }] });
  await apply(env.store, finishTurn, id);
  return id;
}

/** A full turn on a waiting chat: a new message, then back to waiting. */
async function newTurn(chatId: string): Promise<void> {
  await apply(env.store, sendMessage, chatId, { content: text("still here"), busyBehavior: "queue" });
  await apply(env.store, commitStep, chatId, { messages: [{ role: "assistant", content: text("yes") }] });
  await apply(env.store, finishTurn, chatId);
}

async function archivedOf(ids: readonly string[]): Promise<Map<string, { archived: boolean; archivedAt: Date | null }>> {
  const { rows } = await env.pool.query<{ id: string; archived: boolean; archived_at: Date | null }>(
    `SELECT id, archived, archived_at FROM chats WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, { archived: r.archived, archivedAt: r.archived_at }]));
}

/** Archives whatever earlier tests left eligible, so counts below are exact. */
async function drain(): Promise<void> {
  await autoArchiveTick(env.store, { days: DAYS, now: new Date(), limit: 10_000 });
}

describe("dayCutoff", () => {
  it("is 00:00 UTC of the current day minus the days", () => {
    expect(dayCutoff(new Date("2026-03-10T17:45:12Z"), 3).toISOString()).toBe("2026-03-07T00:00:00.000Z");
    expect(dayCutoff(new Date("2026-03-01T00:00:00Z"), 1).toISOString()).toBe("2026-02-28T00:00:00.000Z");
    expect(() => dayCutoff(new Date(), 0)).toThrow(RangeError);
  });
});

describe("auto-archive candidates", () => {
  it("archives old idle families and leaves pinned, busy, recently active, new and archived chats alone", async () => {
    await drain();
    const now = new Date();
    // Candidates: idle or errored, everything in the family older than the cutoff.
    const idle = await makeChat(env, "W");
    const errored = await makeChat(env, "E0");
    const erroredQueued = await makeChat(env, "E1");
    const oldFamily = await makeChat(env, "W");
    const oldChild = await makeChild(oldFamily.chatId);
    await backdate([idle.chatId, errored.chatId, erroredQueued.chatId, oldFamily.chatId, oldChild], 10);

    // Not candidates.
    const pinned = await makeChat(env, "W");
    await env.pool.query(`UPDATE chats SET pin_order = 1 WHERE id = $1`, [pinned.chatId]);
    const busy = await Promise.all((["R0", "I0", "A0"] as const).map((s) => makeChat(env, s)));
    const activeChildFamily = await makeChat(env, "W");
    const activeChild = await makeChild(activeChildFamily.chatId);
    await backdate([activeChildFamily.chatId], 10);
    await backdate([activeChild], 10, { messages: false });
    const busyChildFamily = await makeChat(env, "W");
    const busyChild = await env.store.create({
      organizationId: env.owner.organizationId,
      ownerId: env.owner.userId,
      parentChatId: busyChildFamily.chatId,
      content: text("working"),
    });
    const createdLate = await makeChat(env, "W");
    const alreadyArchived = await makeChat(env, "XW");
    await backdate([pinned.chatId, ...busy.map((c) => c.chatId), busyChildFamily.chatId, busyChild.chat.id, alreadyArchived.chatId], 10);
    await backdate([createdLate.chatId], 10, { chats: false });
    const alreadyArchivedAt = (await archivedOf([alreadyArchived.chatId])).get(alreadyArchived.chatId)?.archivedAt;

    const cutoff = dayCutoff(now, DAYS);
    const candidates = await findAutoArchiveCandidates(env.pool, cutoff, 1_000);
    expect(new Set(candidates)).toEqual(new Set([idle.chatId, errored.chatId, erroredQueued.chatId, oldFamily.chatId]));

    const result = await autoArchiveTick(env.store, { days: DAYS, now });
    expect(result).toMatchObject({ candidates: 4, archived: 4, chats: 5, skipped: 0, failed: 0 });
    expect(await stateOf(env.pool, idle.chatId)).toBe("XW");
    expect(await stateOf(env.pool, errored.chatId)).toBe("XE0");
    expect(await stateOf(env.pool, erroredQueued.chatId)).toBe("XE1");
    expect(await stateOf(env.pool, oldFamily.chatId)).toBe("XW");
    expect(await stateOf(env.pool, oldChild)).toBe("XW");
    const stamped = await archivedOf(result.chatIds);
    for (const id of result.chatIds) expect(stamped.get(id)?.archivedAt, id).toBeInstanceOf(Date);
    // Their objects hear of it, as after a PATCH.
    for (const id of result.chatIds) expect(env.notifier.updatesFor(id).at(-1)?.archived, id).toBe(true);

    const untouched = [pinned, ...busy, activeChildFamily, busyChildFamily, createdLate].map((c) => c.chatId);
    const after = await archivedOf([...untouched, activeChild, busyChild.chat.id, alreadyArchived.chatId]);
    for (const id of [...untouched, activeChild, busyChild.chat.id]) expect(after.get(id)?.archived, id).toBe(false);
    // Already archived: not a candidate, and its archived_at stays when it was archived.
    expect(after.get(alreadyArchived.chatId)).toEqual({ archived: true, archivedAt: alreadyArchivedAt });
  });

  it("counts only non-deleted messages", async () => {
    await drain();
    const chat = await makeChat(env, "W");
    await backdate([chat.chatId], 10);
    await newTurn(chat.chatId);
    const cutoff = dayCutoff(new Date(), DAYS);
    expect(await findAutoArchiveCandidates(env.pool, cutoff, 1_000)).not.toContain(chat.chatId);
    // The recent turn soft-deleted (as EditMessage leaves a truncated suffix): the old history decides.
    await env.pool.query(`UPDATE chat_messages SET deleted = true WHERE chat_id = $1 AND created_at >= $2`, [chat.chatId, cutoff]);
    expect(await findAutoArchiveCandidates(env.pool, cutoff, 1_000)).toContain(chat.chatId);
  });

  it("archives again on the next tick a chat unarchived without a new message", async () => {
    await drain();
    const chat = await makeChat(env, "W");
    await backdate([chat.chatId], 10);
    const now = new Date();
    expect((await autoArchiveTick(env.store, { days: DAYS, now })).chatIds).toEqual([chat.chatId]);
    await env.store.setArchived(chat.chatId, false);
    expect((await archivedOf([chat.chatId])).get(chat.chatId)).toEqual({ archived: false, archivedAt: null });
    expect((await autoArchiveTick(env.store, { days: DAYS, now })).chatIds).toEqual([chat.chatId]);
  });

  it("does nothing when CHAT_AUTO_ARCHIVE_DAYS is 0", async () => {
    await drain();
    const chat = await makeChat(env, "W");
    await backdate([chat.chatId], 400);
    const result = await autoArchiveTick(env.store, { days: 0, now: new Date() });
    expect(result).toMatchObject({ candidates: 0, archived: 0 });
    expect(await stateOf(env.pool, chat.chatId)).toBe("W");
  });

  it("archives at most one batch per tick, oldest first", async () => {
    await drain();
    const chats = [];
    for (let i = 0; i < 5; i++) chats.push(await makeChat(env, "W"));
    for (const [i, c] of chats.entries()) await backdate([c.chatId], 20 - i);
    const now = new Date();
    const ticks = [];
    for (let i = 0; i < 4; i++) ticks.push(await autoArchiveTick(env.store, { days: DAYS, now, limit: 2 }));
    expect(ticks.map((t) => t.archived)).toEqual([2, 2, 1, 0]);
    expect(ticks.flatMap((t) => t.chatIds)).toEqual(chats.map((c) => c.chatId));
    expect(AUTO_ARCHIVE_BATCH).toBeGreaterThan(0);
  });
});

describe("the recheck under the family lock", () => {
  it("skips a chat whose message arrived after the candidate read", async () => {
    await drain();
    const chat = await makeChat(env, "W");
    await backdate([chat.chatId], 10);
    const cutoff = dayCutoff(new Date(), DAYS);
    expect(await findAutoArchiveCandidates(env.pool, cutoff, 1_000)).toContain(chat.chatId);

    // Between the read and the archive: a whole turn, so the chat is idle again, with a new message.
    await newTurn(chat.chatId);
    expect(await stateOf(env.pool, chat.chatId)).toBe("W");
    expect(await archiveIfCandidate(env.store, chat.chatId, cutoff)).toEqual({ archived: false });
    expect(await stateOf(env.pool, chat.chatId)).toBe("W");
  });

  it("skips a family whose child got a message after the read", async () => {
    await drain();
    const root = await makeChat(env, "W");
    const child = await makeChild(root.chatId);
    await backdate([root.chatId, child], 10);
    const cutoff = dayCutoff(new Date(), DAYS);
    expect(await findAutoArchiveCandidates(env.pool, cutoff, 1_000)).toContain(root.chatId);
    await newTurn(child);
    expect(await archiveIfCandidate(env.store, root.chatId, cutoff)).toEqual({ archived: false });
    expect(await stateOf(env.pool, root.chatId)).toBe("W");
    expect(await stateOf(env.pool, child)).toBe("W");
  });

  it("rechecks after taking the lock: a message committed while the archive waits for it wins", async () => {
    await drain();
    const chat = await makeChat(env, "W");
    await backdate([chat.chatId], 10);
    const cutoff = dayCutoff(new Date(), DAYS);
    expect(await findAutoArchiveCandidates(env.pool, cutoff, 1_000)).toContain(chat.chatId);

    let locked!: () => void;
    const lockHeld = new Promise<void>((resolve) => {
      locked = resolve;
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A send holds the chat row lock, its message written but not committed.
    const input = { content: text("racing"), busyBehavior: "queue" as const };
    const sending = env.store.update(
      chat.chatId,
      async (tx) => {
        await sendMessage(tx, input);
        locked();
        await gate;
      },
      { prefetchTail: prefetchFor(sendMessage, input) },
    );
    await lockHeld;
    let settled = false;
    const archiving = archiveIfCandidate(env.store, chat.chatId, cutoff).finally(() => {
      settled = true;
    });
    // Postgres itself says a statement on chats waits for a lock: the archive, behind the send.
    const waiting = async () =>
      Number(
        (
          await env.pool.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%chats%'",
          )
        ).rows[0]?.n,
      );
    await expect.poll(waiting).toBeGreaterThan(0);
    expect(settled).toBe(false);
    release();
    await sending;
    expect(await archiving).toEqual({ archived: false });
    expect((await archivedOf([chat.chatId])).get(chat.chatId)?.archived).toBe(false);
  });

  it("archives a candidate whose family is unchanged since the read", async () => {
    await drain();
    const chat = await makeChat(env, "W");
    await backdate([chat.chatId], 10);
    const cutoff = dayCutoff(new Date(), DAYS);
    const outcome = await archiveIfCandidate(env.store, chat.chatId, cutoff);
    expect(outcome.archived).toBe(true);
    expect(await stateOf(env.pool, chat.chatId)).toBe("XW");
  });

  it("counts a cutoff in days before today's midnight", async () => {
    await drain();
    const chat = await makeChat(env, "W");
    // Just after the cutoff for 3 days: not yet a candidate; 5 days: one.
    await backdate([chat.chatId], 2);
    const now = new Date();
    expect(await findAutoArchiveCandidates(env.pool, dayCutoff(now, 3), 1_000)).not.toContain(chat.chatId);
    expect(await findAutoArchiveCandidates(env.pool, new Date(now.getTime() - DAY_MS), 1_000)).toContain(chat.chatId);
  });
});
