/**
 * Paging the chat list (offset, search) and a chat's history (before a message, newest first):
 * pages neither repeat nor skip rows, also while rows are written between them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listChats, listMessages } from "../../src/chats/index";
import { commitStep, editMessage } from "../../src/chats/transitions/index";
import type { ChatMessageRow } from "../../src/db/schema/chats";
import { type Env, makeChat, makeEnv, makeOwner, text } from "./fixtures";
import { apply } from "./support/apply";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(() => env.pool.end());

/** A running chat (R0: its first user message and one reply) with `extra` more assistant messages. */
async function chatWithHistory(extra: number): Promise<string> {
  const { chatId } = await makeChat(env, "R0");
  for (let i = 0; i < extra; i++) await apply(env.store, commitStep, chatId, { messages: [{ role: "assistant", content: text(`m${i}`) }] });
  return chatId;
}

/** Pages backwards from the newest until has_more is false; each page as the store answers it. */
async function pageBack(chatId: string, limit: number, between: () => Promise<void> = async () => {}) {
  const pages: { messages: ChatMessageRow[]; hasMore: boolean }[] = [];
  let beforeId: number | undefined;
  for (;;) {
    const page = await env.store.messagesAndQueue(chatId, () => {}, { beforeId, limit });
    pages.push({ messages: page.messages, hasMore: page.hasMore });
    if (!page.hasMore) return pages;
    beforeId = page.messages[0]!.id;
    await between();
  }
}

describe.concurrent("a chat's history, page by page", () => {
  it("pages backwards in id order, each page oldest first, has_more false on the last alone", async () => {
    const chatId = await chatWithHistory(18); // 20 shown messages
    const all = (await listMessages(env.pool, chatId)).map((m) => m.id);
    expect(all).toHaveLength(20);
    const pages = await pageBack(chatId, 7);
    expect(pages.map((p) => p.messages.length)).toEqual([7, 7, 6]);
    expect(pages.map((p) => p.hasMore)).toEqual([true, true, false]);
    expect(
      pages
        .reverse()
        .flatMap((p) => p.messages)
        .map((m) => m.id),
    ).toEqual(all);
    // An exact fit: the page that ends at the first message says there is no more.
    const exact = await env.store.messagesAndQueue(chatId, () => {}, { limit: 20 });
    expect([exact.messages.length, exact.hasMore]).toEqual([20, false]);
    // Without a page: the whole history, as before paging existed.
    const whole = await env.store.messagesAndQueue(chatId, () => {});
    expect([whole.messages.map((m) => m.id), whole.hasMore]).toEqual([all, false]);
  });

  it("neither repeats nor skips while the chat commits messages between pages", async () => {
    const chatId = await chatWithHistory(13); // 15 shown messages
    const before = (await listMessages(env.pool, chatId)).map((m) => m.id);
    let written = 0;
    let inFlight: Promise<unknown> = Promise.resolve();
    const commitReply = () =>
      apply(env.store, commitStep, chatId, { messages: [{ role: "assistant", content: text(`late ${written++}`) }] });
    // Between pages the runner commits a reply, and starts another that commits while the next page is read.
    const writer = async () => {
      await inFlight;
      await commitReply();
      inFlight = commitReply();
    };
    const pages = await pageBack(chatId, 4, writer);
    await inFlight;
    const seen = pages.flatMap((p) => p.messages.map((m) => m.id));
    expect(new Set(seen).size).toBe(seen.length);
    // Page one may or may not hold what was written before it was read; nothing older is missed.
    const first = pages[0]!.messages;
    const newestSeen = first[first.length - 1]!;
    const upToNewest = (await listMessages(env.pool, chatId)).filter((m) => m.id <= newestSeen.id).map((m) => m.id);
    expect([...seen].sort((a, b) => a - b)).toEqual([...upToNewest].sort((a, b) => a - b));
    expect(upToNewest.slice(0, before.length)).toEqual(before);
    expect(written).toBeGreaterThanOrEqual(6);
  });

  it("takes any id as the cursor (a deleted message's, another chat's, one past the newest) and shows only the active history", async () => {
    const chat = await makeChat(env, "W");
    const other = await makeChat(env, "W");
    const edited = await apply(env.store, editMessage, chat.chatId, { messageId: chat.firstUserMessageId, content: text("v2") });
    await apply(env.store, commitStep, chat.chatId, {
      messages: [
        { role: "user", modelOnly: true, content: text("hidden") },
        { role: "assistant", content: text("ok") },
      ],
    });
    const page = await env.store.messagesAndQueue(chat.chatId, () => {}, { limit: 10 });
    expect(page.messages.map((m) => m.content)).toEqual([text("v2"), text("ok")]);
    expect(page.hasMore).toBe(false);
    // The replaced first message is deleted; as a cursor it still marks its place: nothing is older.
    const older = await env.store.messagesAndQueue(chat.chatId, () => {}, { beforeId: chat.firstUserMessageId, limit: 10 });
    expect([older.messages, older.hasMore]).toEqual([[], false]);
    const beforeOk = await env.store.messagesAndQueue(chat.chatId, () => {}, { beforeId: page.messages[1]!.id, limit: 10 });
    expect(beforeOk.messages.map((m) => m.id)).toEqual([edited.value.message.id]);
    // Ids are one global order: another chat's id is a place in time like any other. The other chat
    // was made after this chat's first turn and before the edit, which cut that whole turn.
    const beforeOther = await env.store.messagesAndQueue(chat.chatId, () => {}, { beforeId: other.firstUserMessageId, limit: 10 });
    expect([beforeOther.messages, beforeOther.hasMore]).toEqual([[], false]);
    const beforeAll = await env.store.messagesAndQueue(chat.chatId, () => {}, { beforeId: Number.MAX_SAFE_INTEGER, limit: 1 });
    expect([beforeAll.messages.map((m) => m.content), beforeAll.hasMore]).toEqual([[text("ok")], true]);
  });
});

describe.concurrent("the chat list, page by page", () => {
  it("pages by offset in a total order, ties on created_at broken by id", async () => {
    const owner = await makeOwner(env.pool);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push((await env.store.create({ organizationId: owner.organizationId, ownerId: owner.userId, content: [] })).chat.id);
    // Every chat created in the same instant: only the id orders them.
    await env.pool.query(`UPDATE chats SET created_at = '2026-01-01T00:00:00Z' WHERE owner_id = $1`, [owner.userId]);
    const pages: string[][] = [];
    for (let offset = 0; offset < 8; offset += 3)
      pages.push((await listChats(env.pool, { ownerId: owner.userId, limit: 3, offset })).map((c) => c.id));
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual([...ids].sort().reverse());
    // Offset applies after the keyset cursor.
    const afterFirst = await listChats(env.pool, { ownerId: owner.userId, afterId: pages[0]![0]!, offset: 2, limit: 2 });
    expect(afterFirst.map((c) => c.id)).toEqual(pages.flat().slice(3, 5));
  });

  it("filters by words of the title, each one case-insensitively, LIKE's wildcards taken literally", async () => {
    const owner = await makeOwner(env.pool);
    const mk = (title: string) =>
      env.store.create({ organizationId: owner.organizationId, ownerId: owner.userId, content: [], title }).then((c) => c.chat.id);
    const deploy = await mk("Deploy the API");
    const deployDocs = await mk("deploy docs");
    const percent = await mk("100% done");
    await mk("100 points");
    const find = (titleWords: string[]) => listChats(env.pool, { ownerId: owner.userId, titleWords }).then((r) => r.map((c) => c.id));
    expect(await find(["DEPLOY"])).toEqual([deployDocs, deploy]);
    expect(await find(["deploy", "api"])).toEqual([deploy]);
    expect(await find(["100%"])).toEqual([percent]);
    expect(await find(["_"])).toEqual([]);
  });
});
