/** A chat's prompt history (src/chats/prompts.ts): bounded by count and by characters of text. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readChatPrompts } from "../../src/chats/prompts";
import { finishTurn, sendMessage } from "../../src/chats/transitions/index";
import { type Env, makeChat, makeEnv, text } from "./fixtures";
import { apply } from "./support/apply";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(() => env?.pool.end());

describe("readChatPrompts", () => {
  it("stops after the prompt that crosses the text budget, newest first, and reads the owner", async () => {
    const { chatId } = await makeChat(env, "W");
    for (const prompt of ["aaaa", "bbbb", "cccc"]) {
      await apply(env.store, sendMessage, chatId, { content: text(prompt), busyBehavior: "queue" });
      await apply(env.store, finishTurn, chatId);
    }
    const texts = async (limit: number, budget?: number) =>
      (await readChatPrompts(env.pool, chatId, limit, budget))!.prompts.map((p) => p.text);
    expect(await texts(10)).toEqual(["cccc", "bbbb", "aaaa", "hello"]);
    expect(await texts(2)).toEqual(["cccc", "bbbb"]);
    // 4 characters before "bbbb" starts, 8 before "aaaa": a budget of 5 ends with "bbbb".
    expect(await texts(10, 5)).toEqual(["cccc", "bbbb"]);
    expect(await texts(10, 1)).toEqual(["cccc"]);
    expect((await readChatPrompts(env.pool, chatId, 1))!.ownerId).toBe(env.owner.userId);
    expect(await readChatPrompts(env.pool, crypto.randomUUID(), 1)).toBeUndefined();
  });
});
