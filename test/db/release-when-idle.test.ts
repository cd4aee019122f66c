/**
 * The Abandon that follows a turn which leaves the chat idle, applied in the turn's own
 * transaction (src/chat-worker/release-when-idle.ts): released when the landing is not runnable,
 * kept when the turn promoted a queued message (the chat runs on).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { releaseWhenIdle } from "../../src/chat-worker/release-when-idle";
import type { ChatTx } from "../../src/chats/chat-tx";
import { finishError, finishTurn } from "../../src/chats/transitions/index";
import { chatRow, makeChat, makeEnv, type Env } from "./fixtures";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(() => env.pool.end());

async function endTurn(chatId: string, end: (tx: ChatTx) => Promise<unknown>) {
  const hints = env.notifier.hintsFor(chatId).length;
  const committed = await env.store.update(chatId, async (tx) => {
    await end(tx);
    await releaseWhenIdle(tx);
  });
  return { committed, row: await chatRow(env, chatId), newHints: env.notifier.hintsFor(chatId).length - hints };
}

describe("releaseWhenIdle", () => {
  it("releases a chat whose turn finished into waiting, in the same transaction", async () => {
    const { chatId } = await makeChat(env, "R0", { owned: true });
    const { committed, row } = await endTurn(chatId, (tx) => finishTurn(tx));
    expect(committed.applied.map((a) => a.transition)).toEqual(["FinishTurn", "Abandon"]);
    expect(committed.state).toBe("W");
    expect([row.worker_id, row.runner_id]).toEqual([null, null]);
  });

  it("releases a chat whose turn failed into error", async () => {
    const { chatId } = await makeChat(env, "R0", { owned: true });
    const { committed, row } = await endTurn(chatId, (tx) => finishError(tx, { error: "model failed" }));
    expect(committed.applied.map((a) => a.transition)).toEqual(["FinishError", "Abandon"]);
    expect(row.worker_id).toBeNull();
  });

  it("keeps the owner when the turn promoted a queued message: the chat runs on, and no hint goes out", async () => {
    const { chatId } = await makeChat(env, "R1", { owned: true });
    const before = await chatRow(env, chatId);
    const { committed, row, newHints } = await endTurn(chatId, (tx) => finishTurn(tx));
    expect(committed.applied.map((a) => a.transition)).toEqual(["FinishTurn"]);
    expect(committed.state).toBe("R0");
    expect([row.worker_id, row.runner_id]).toEqual([before.worker_id, before.runner_id]);
    expect(newHints).toBe(0);
  });
});
