/**
 * The commit write checks itself (src/chats/commit-write.ts): COMMIT goes out in its round trip, so a
 * check that fails must fail inside the statement (chatd_check) or before it, and roll back
 * everything the transaction wrote. These drive a ChatTx into the states the checks guard against.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreInvariantError } from "../../src/chats/index";
import { sendMessage } from "../../src/chats/transitions/index";
import { makeChat, makeEnv, snapshotRows, text, type Env } from "./fixtures";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(async () => {
  await env.pool.end();
});

const TITLE = "UPDATE chats SET title = $2 WHERE id = $1";

describe("the commit write's checks", () => {
  it("rolls back the whole transaction when the queue does not hold what the transitions counted (checked in SQL)", async () => {
    const chat = await makeChat(env, "W");
    const before = await snapshotRows(env.pool, chat.chatId);
    const updates = env.notifier.updatesFor(chat.chatId).length;
    const err = await env.store
      .update(chat.chatId, async (tx) => {
        await tx.query(TITLE, [chat.chatId, "written before the check"]);
        // No transition landed, so only the statement can notice the miscount.
        tx.noteQueueChange(1, undefined);
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreInvariantError);
    expect((err as Error).message).toContain("does not have the 1 queued messages");
    expect(await snapshotRows(env.pool, chat.chatId)).toBe(before);
    expect(env.notifier.updatesFor(chat.chatId)).toHaveLength(updates);
  });

  it("refuses, before writing, a row that would not classify as the last landing", async () => {
    const chat = await makeChat(env, "W");
    const before = await snapshotRows(env.pool, chat.chatId);
    const err = await env.store
      .update(chat.chatId, async (tx) => {
        await sendMessage(tx, { content: text("hello"), busyBehavior: "queue" });
        tx.noteQueueChange(1, undefined);
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreInvariantError);
    expect((err as Error).message).toMatch(/would land in R1, the table says R0/);
    expect(await snapshotRows(env.pool, chat.chatId)).toBe(before);
  });

  it("commits what passes, with the committed row read back from the same statement", async () => {
    const chat = await makeChat(env, "W");
    const committed = await env.store.update(chat.chatId, (tx) => sendMessage(tx, { content: text("hello"), busyBehavior: "queue" }));
    expect(committed.state).toBe("R0");
    expect(committed.queueLength).toBe(0);
    expect((await env.pool.query("SELECT status FROM chats WHERE id = $1", [chat.chatId])).rows[0]!.status).toBe("running");
  });
});
