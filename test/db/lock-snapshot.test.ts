/**
 * The row lock's first statement also counts the queue and reads the tail, from a snapshot taken
 * before any wait for the lock (src/chats/chat-tx.ts lockBumpAndReadSql). A transition that
 * commits on the chat while another waits for its row must not leave the waiter with its stale
 * counts: the waiter sees that the locked row moved past its snapshot and reads them again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatTx } from "../../src/chats/index";
import { makeChat, makeEnv, queueOf, text, type Env } from "./fixtures";
import { sendMessage } from "../../src/chats/transitions/index";
import { apply } from "./support/apply";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(() => env.pool.end());

/** Backends waiting on a lock held by $1. */
const WAITING_ON = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))`;

/**
 * Runs `during` while a transaction that queued a message on `chatId` holds the chat's row lock,
 * once `waiters` backends wait behind it; then commits it.
 */
async function whileQueueing<T>(chatId: string, waiters: number, during: () => Promise<T>): Promise<T> {
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
      await sendMessage(tx, { content: text("first"), busyBehavior: "queue" });
      pid = (await tx.query<{ pid: number }>("SELECT pg_backend_pid() AS pid"))[0]!.pid;
      holding();
      await released;
    },
    { prefetchTail: sendMessage.prefetchTail({ busyBehavior: "queue" }) },
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
    const second = await whileQueueing(chat.chatId, 1, () =>
      apply(env.store, sendMessage, chat.chatId, { content: text("second"), busyBehavior: "queue" }),
    );
    expect(second.queueLength).toBe(2);
    expect(second.value.queuedMessage?.position).toBe(1);
    expect((await queueOf(env, chat.chatId)).map((q) => q.position)).toEqual([0, 1]);
    // The waiter read the queue again under the lock: one statement more than a send that did not wait.
    expect(second.statements).toBe(alone.statements + 1);
  });
});
