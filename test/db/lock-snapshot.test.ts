/**
 * The row lock's first statement also counts the queue and reads the tail, from a snapshot taken
 * before any wait for the lock (src/chats/row-lock.ts lockBumpAndReadSql); the runner's fenced read
 * locks the row and reads its history in one statement the same way (src/chat-worker/fenced-db.ts).
 * A transition that commits on the chat while another waits for its row must not leave the waiter
 * with stale reads: the waiter sees that the locked row moved past its snapshot and reads again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatTx } from "../../src/chats/index";
import { lockRowIfSql } from "../../src/chats/row-lock";
import { chatRow, makeChat, makeEnv, queueOf, text, type Env } from "./fixtures";
import { commitStep, sendMessage } from "../../src/chats/transitions/index";
import { fencedRead } from "../../src/chat-worker/fenced-db";
import { chatFromRaw, messageFromRaw } from "../../src/db/rows";
import { apply } from "./support/apply";
import { prefetchFor } from "../../src/chats/lock-prefetch";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(() => env.pool.end());

/** Backends waiting on a lock held by $1. */
const WAITING_ON = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))`;

/**
 * Runs `during` while a transaction that applied `hold` on `chatId` holds the chat's row lock, until
 * `waiters` backends wait behind it; then commits it.
 */
async function whileHolding<T>(
  chatId: string,
  hold: (tx: ChatTx) => Promise<unknown>,
  waiters: number,
  during: () => Promise<T>,
): Promise<T> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let pid!: number;
  let holding!: () => void;
  const held = new Promise<void>((resolve) => {
    holding = resolve;
  });
  const holder = env.store.update(
    chatId,
    async (tx: ChatTx) => {
      await hold(tx);
      pid = (await tx.query<{ pid: number }>("SELECT pg_backend_pid() AS pid"))[0]!.pid;
      holding();
      await released;
    },
    { prefetchTail: prefetchFor(sendMessage, { content: [], busyBehavior: "queue" }) },
  );
  await held;
  const result = during();
  await expect.poll(async () => (await env.pool.query(WAITING_ON, [pid])).rows[0].n, { timeout: 10_000, interval: 20 }).toBe(waiters);
  release();
  await holder;
  return result;
}

describe("the lock's counts after a wait for the row", () => {
  it("a queued send that waited behind another send counts that send's queued message", async () => {
    const uncontended = await makeChat(env, "R0", { owned: true });
    const alone = await apply(env.store, sendMessage, uncontended.chatId, { content: text("alone"), busyBehavior: "queue" });

    const chat = await makeChat(env, "R0", { owned: true });
    const queueFirst = (tx: ChatTx) => sendMessage(tx, { content: text("first"), busyBehavior: "queue" });
    const second = await whileHolding(chat.chatId, queueFirst, 1, () =>
      apply(env.store, sendMessage, chat.chatId, { content: text("second"), busyBehavior: "queue" }),
    );
    expect(second.queueLength).toBe(2);
    expect(second.value.queuedMessage?.position).toBe(1);
    expect((await queueOf(env, chat.chatId)).map((q) => q.position)).toEqual([0, 1]);
    // The waiter read the queue again under the lock: one statement more than a send that did not wait.
    expect(second.statements).toBe(alone.statements + 1);
  });

  it("a fenced read that waited behind a step's commit returns the history with that step's message", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    const row = await chatRow(env, chat.chatId);
    // status null: the abandon task's fence, which only needs the runner to still own the chat.
    const fence = {
      chatId: chat.chatId,
      workerId: String(row.worker_id),
      runnerId: String(row.runner_id),
      historyVersion: 0,
      status: null,
    };
    const step = (tx: ChatTx) => commitStep(tx, { messages: [{ role: "assistant", content: text("the step") }] });
    const read = await whileHolding(chat.chatId, step, 1, () => fencedRead(env.store, fence));
    expect(read.chat.historyVersion).toBe(Number((await chatRow(env, chat.chatId)).history_version));
    expect(read.history.at(-1)?.content).toEqual(text("the step"));
  });

  it("a fenced read that did not wait returns the same chat and history as the lock-then-read transaction", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    await apply(env.store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: text("a step") }] });
    const row = await chatRow(env, chat.chatId);
    const fence = {
      chatId: chat.chatId,
      workerId: String(row.worker_id),
      runnerId: String(row.runner_id),
      historyVersion: Number(row.history_version),
      status: "running" as const,
    };
    const read = await fencedRead(env.store, fence);
    const { rows } = await env.pool.query(`SELECT * FROM chat_messages WHERE chat_id = $1 ORDER BY id`, [chat.chatId]);
    expect(read.history).toEqual(rows.map(messageFromRaw));
    expect(read.chat).toEqual(chatFromRaw(row));
  });
});

describe("the one-statement attempt after a wait for the row (ChatStore.recordOwnedAttempt)", () => {
  it("counts the message a send queued while it waited", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    const row = await chatRow(env, chat.chatId);
    const owned = {
      chatId: chat.chatId,
      workerId: String(row.worker_id),
      runnerId: String(row.runner_id),
      historyVersion: Number(row.history_version),
    };
    const queue = (tx: ChatTx) => sendMessage(tx, { content: text("queued meanwhile"), busyBehavior: "queue" });
    const recorded = await whileHolding(chat.chatId, queue, 1, () => env.store.recordOwnedAttempt(owned));
    expect(recorded?.queueLength).toBe(1);
    expect(recorded?.state).toBe("R1");
    expect(recorded?.chat.generationAttempt).toBe(1);
  });
});

describe("a guarded row lock (ChatStore.updateGuarded)", () => {
  const versionOf = async (id: string) =>
    (await env.pool.query<{ v: number }>("SELECT snapshot_version::int AS v FROM chats WHERE id = $1", [id])).rows[0]!.v;
  const guard = (lock: boolean) => ({
    text: `SELECT $1::int AS n, ${lockRowIfSql("$2::boolean")} AS lock_row`,
    values: [7, lock],
    answer: (row: { n?: number } | undefined) => (lock ? undefined : { answer: row?.n }),
  });

  it("locks and bumps the row when the guard says so, and leaves it untouched when it does not", async () => {
    const { chatId } = await makeChat(env, "W");
    const before = await versionOf(chatId);
    const answered = await env.store.updateGuarded(chatId, guard(false), async () => "never");
    expect(answered).toEqual({ answer: 7 });
    expect(await versionOf(chatId)).toBe(before);

    const committed = await env.store.updateGuarded(chatId, guard(true), async (tx) => tx.chat.snapshotVersion);
    expect("value" in committed && committed.value).toBe(before + 1);
    expect(await versionOf(chatId)).toBe(before + 1);
  });

  it("refuses a guard that answers after the SQL let the lock through, writing nothing", async () => {
    const { chatId } = await makeChat(env, "W");
    const before = await versionOf(chatId);
    const lying = { ...guard(true), answer: () => ({ answer: "no" }) };
    await expect(env.store.updateGuarded(chatId, lying, async () => "never")).rejects.toThrow("answered without it");
    expect(await versionOf(chatId)).toBe(before);
  });
});
