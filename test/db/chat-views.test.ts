/**
 * Chats as Coder's `Chat` shows them (src/chats/chat-views.ts): `has_unread` is an assistant
 * message past the owner's read marker, which only moves forward; a root lists its subagents.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markChatRead, readChatView, readChatViews } from "../../src/chats/chat-views";
import { commitStep, finishTurn, sendMessage } from "../../src/chats/transitions/index";
import { type Env, makeChat, makeEnv, text } from "./fixtures";
import { apply } from "./support/apply";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(() => env?.pool.end());

const unread = async (chatId: string) => (await readChatView(env.pool, chatId))!.hasUnread;

describe.concurrent("has_unread", () => {
  it("is set by an assistant message past the read marker and cleared by marking the chat read", async () => {
    const { chatId } = await makeChat(env, "W");
    // The fixture's reply has never been seen.
    expect(await unread(chatId)).toBe(true);
    await markChatRead(env.pool, chatId);
    expect(await unread(chatId)).toBe(false);
    // The owner's next prompt is no news to them; the reply to it is.
    await apply(env.store, sendMessage, chatId, { content: text("more"), busyBehavior: "queue" });
    expect(await unread(chatId)).toBe(false);
    await apply(env.store, commitStep, chatId, { messages: [{ role: "assistant", content: text("again") }] });
    expect(await unread(chatId)).toBe(true);
    await markChatRead(env.pool, chatId);
    expect(await unread(chatId)).toBe(false);
  });

  it("counts only shown assistant messages, never user or deleted ones", async () => {
    const { chatId } = await makeChat(env, "R0");
    await markChatRead(env.pool, chatId);
    expect(await unread(chatId)).toBe(false);
    await apply(env.store, commitStep, chatId, { messages: [{ role: "assistant", content: text("a reply") }] });
    expect(await unread(chatId)).toBe(true);
    const { rows } = await env.pool.query<{ id: string }>(
      "SELECT id FROM chat_messages WHERE chat_id = $1 AND role = 'assistant' ORDER BY id DESC LIMIT 1",
      [chatId],
    );
    await env.pool.query("UPDATE chat_messages SET deleted = true WHERE id = $1", [rows[0]!.id]);
    expect(await unread(chatId)).toBe(false);
    await env.pool.query("UPDATE chat_messages SET deleted = false, model_only = true WHERE id = $1", [rows[0]!.id]);
    expect(await unread(chatId)).toBe(false);
    await apply(env.store, finishTurn, chatId);
  });

  it("never moves the marker backwards", async () => {
    const { chatId } = await makeChat(env, "R0");
    await markChatRead(env.pool, chatId);
    const before = await env.pool.query<{ marker: string }>("SELECT last_read_message_id AS marker FROM chats WHERE id = $1", [chatId]);
    expect(Number(before.rows[0]!.marker)).toBeGreaterThan(0);
    await env.pool.query("UPDATE chat_messages SET deleted = true WHERE chat_id = $1 AND role = 'assistant'", [chatId]);
    await markChatRead(env.pool, chatId);
    const after = await env.pool.query<{ marker: string }>("SELECT last_read_message_id AS marker FROM chats WHERE id = $1", [chatId]);
    expect(after.rows[0]!.marker).toBe(before.rows[0]!.marker);
  });
});

describe.concurrent("children", () => {
  it("lists a root's subagents newest first with their own flags, and none under a subagent", async () => {
    const root = await makeChat(env, "W");
    const child = async () =>
      (
        await env.store.create({
          organizationId: env.owner.organizationId,
          ownerId: env.owner.userId,
          parentChatId: root.chatId,
          content: text("do a part"),
        })
      ).chat.id;
    const first = await child();
    const second = await child();
    await apply(env.store, commitStep, second, { messages: [{ role: "assistant", content: text("done") }] });

    const [view, firstView] = await readChatViews(env.pool, [root.chatId, first]);
    expect(view!.children.map((c) => [c.chat.id, c.hasUnread])).toEqual([
      [second, true],
      [first, false],
    ]);
    expect(firstView!.children).toEqual([]);
    // A chat that does not exist is left out.
    expect(await readChatViews(env.pool, [crypto.randomUUID()])).toEqual([]);
  });
});
