/**
 * chats.last_reasoning_effort "tracks the most recent message that set one, mirroring
 * last_model_config_id": sends, edits and queued messages carried through promotion.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatRow, makeChat, makeEnv, text, type Env } from "./fixtures";
import { editMessage, finishTurn, sendMessage } from "../../src/chats/transitions/index";
import { apply } from "./support/apply";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(() => env.pool.end());

const lastOf = async (chatId: string) => {
  const row = await chatRow(env, chatId);
  return { model: row.last_model_config_id, effort: row.last_reasoning_effort };
};

describe.concurrent("last_reasoning_effort", () => {
  it("takes an effort sent without a model", async () => {
    const chat = await makeChat(env, "W");
    await apply(env.store, sendMessage, chat.chatId, { content: text("think"), busyBehavior: "queue", reasoningEffort: "high" });
    expect(await lastOf(chat.chatId)).toEqual({ model: null, effort: "high" });
  });

  it("keeps the effort when a later message sets only a model", async () => {
    const chat = await makeChat(env, "W");
    await apply(env.store, sendMessage, chat.chatId, { content: text("think"), busyBehavior: "queue", reasoningEffort: "low" });
    await apply(env.store, finishTurn, chat.chatId);
    const model = randomUUID();
    await apply(env.store, sendMessage, chat.chatId, { content: text("other model"), busyBehavior: "queue", modelConfigId: model });
    expect(await lastOf(chat.chatId)).toEqual({ model, effort: "low" });
  });

  it("keeps both when a message sets neither, and a later effort replaces the earlier one", async () => {
    const chat = await makeChat(env, "W");
    await apply(env.store, sendMessage, chat.chatId, { content: text("a"), busyBehavior: "queue", reasoningEffort: "medium" });
    await apply(env.store, finishTurn, chat.chatId);
    await apply(env.store, sendMessage, chat.chatId, { content: text("b"), busyBehavior: "queue" });
    expect((await lastOf(chat.chatId)).effort).toBe("medium");
    await apply(env.store, finishTurn, chat.chatId);
    await apply(env.store, sendMessage, chat.chatId, { content: text("c"), busyBehavior: "queue", reasoningEffort: "xhigh" });
    expect((await lastOf(chat.chatId)).effort).toBe("xhigh");
  });

  it("carries a queued message's effort through promotion, not before", async () => {
    const chat = await makeChat(env, "R0");
    const sent = await apply(env.store, sendMessage, chat.chatId, {
      content: text("later"),
      busyBehavior: "queue",
      reasoningEffort: "max",
    });
    expect(sent.value.queuedMessage?.reasoningEffort).toBe("max");
    expect((await lastOf(chat.chatId)).effort).toBeNull();
    // FinishTurn promotes the queue head.
    await apply(env.store, finishTurn, chat.chatId);
    expect((await lastOf(chat.chatId)).effort).toBe("max");
  });

  it("takes the effort of an edit", async () => {
    const chat = await makeChat(env, "W");
    await apply(env.store, editMessage, chat.chatId, {
      messageId: chat.firstUserMessageId,
      content: text("again"),
      reasoningEffort: "minimal",
    });
    expect((await lastOf(chat.chatId)).effort).toBe("minimal");
  });
});
