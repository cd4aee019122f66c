/**
 * Paging over HTTP, as Coder's clients page: `GET /chats` with `q` and `offset`, and
 * `GET /chats/{chat}/messages` with `before_id` and `limit` answering `has_more`. Bad paging input
 * (a `before_id` that is not a positive integer) is a 400 naming the field; another user's chat is a
 * 404. `before_id` is a cursor in the one global id order, so any integer pages this chat alone.
 */
import { describe, expect, it } from "vitest";
import { ChatStore } from "../../src/chats/store";
import { commitStep } from "../../src/chats/transitions/commit-step";
import { api, createTestUser, expectJson, type TestUser, withDb } from "./support/accounts";

interface Chat {
  id: string;
  archived: boolean;
}
interface Messages {
  messages: { id: number; content: { text?: string }[] }[];
  queued_messages: unknown[];
  has_more: boolean;
}
interface ErrorBody {
  code: string;
  validations?: { field: string; detail: string }[];
}

const newChat = async (user: TestUser, title: string) =>
  expectJson<Chat>(await api("/chats", { token: user.token, body: { content: [], title } }), 201);

/** A chat created over HTTP with `replies` assistant messages committed (the chat worker is off in this project). */
async function chatWithReplies(user: TestUser, replies: number): Promise<string> {
  const chat = await expectJson<Chat>(await api("/chats", { token: user.token, body: { content: [{ type: "text", text: "q0" }] } }), 201);
  await withDb(async (db) => {
    const store = new ChatStore(db.$client);
    for (let i = 1; i <= replies; i++)
      await store.update(chat.id, (tx) =>
        commitStep(tx, { messages: [{ role: "assistant", content: [{ type: "text", text: `a${i}` }] }] }),
      );
  });
  return chat.id;
}

const ids = (chats: Chat[]) => chats.map((c) => c.id);

async function expectRefused(res: Response, status: number, field?: string): Promise<ErrorBody> {
  const body = await expectJson<ErrorBody>(res, status);
  if (field !== undefined) expect(body.validations?.map((v) => v.field)).toContain(field);
  return body;
}

describe("GET /chats with q and offset", () => {
  it("pages by offset without repeating page one, and filters by Coder's archived: term and title words", async () => {
    const u = await createTestUser();
    const made: Chat[] = [];
    for (const title of ["alpha deploy", "beta", "gamma deploy", "delta", "epsilon"]) made.push(await newChat(u, title));
    await expectJson(await api(`/chats/${made[1]!.id}`, { token: u.token, method: "PATCH", body: { archived: true } }), 204);
    const newestFirst = ids(made).reverse();

    const page1 = ids(await expectJson<Chat[]>(await api("/chats?limit=2", { token: u.token }), 200));
    const page2 = ids(await expectJson<Chat[]>(await api("/chats?limit=2&offset=2", { token: u.token }), 200));
    const page3 = ids(await expectJson<Chat[]>(await api("/chats?limit=2&offset=4", { token: u.token }), 200));
    expect([...page1, ...page2, ...page3]).toEqual(newestFirst);

    const live = await expectJson<Chat[]>(await api(`/chats?q=${encodeURIComponent("archived:false")}`, { token: u.token }), 200);
    expect(ids(live)).toEqual(newestFirst.filter((id) => id !== made[1]!.id));
    const archived = await expectJson<Chat[]>(await api("/chats?q=archived:true", { token: u.token }), 200);
    expect(ids(archived)).toEqual([made[1]!.id]);
    const deploys = await expectJson<Chat[]>(await api(`/chats?q=${encodeURIComponent("archived:false Deploy")}`, { token: u.token }), 200);
    expect(ids(deploys)).toEqual([made[2]!.id, made[0]!.id]);
    const livePage2 = await expectJson<Chat[]>(await api("/chats?q=archived:false&limit=2&offset=2", { token: u.token }), 200);
    expect(ids(livePage2)).toEqual([made[2]!.id, made[0]!.id]);
  });

  it("filters by Coder's has_unread: term, a reply past the owner's read marker", async () => {
    const u = await createTestUser();
    const seen = await chatWithReplies(u, 1);
    const unseen = await chatWithReplies(u, 1);
    const quiet = (await newChat(u, "no replies")).id;
    await withDb((db) => db.$client.query("UPDATE chats SET last_read_message_id = 9223372036854775807 WHERE id = $1", [seen]));
    const q = (s: string) => api(`/chats?q=${encodeURIComponent(s)}`, { token: u.token });
    expect(ids(await expectJson<Chat[]>(await q("has_unread:true"), 200))).toEqual([unseen]);
    expect(ids(await expectJson<Chat[]>(await q("archived:false has_unread:false"), 200))).toEqual([quiet, seen]);
    const listed = await expectJson<(Chat & { has_unread: boolean })[]>(await api("/chats", { token: u.token }), 200);
    expect(listed.map((c) => [c.id, c.has_unread])).toEqual([
      [quiet, false],
      [unseen, true],
      [seen, false],
    ]);
  });

  it("refuses a bad q term, a negative or too deep offset, a limit past its bound, and a q that contradicts archived", async () => {
    const u = await createTestUser();
    const q = (s: string) => `/chats?q=${encodeURIComponent(s)}`;
    expect((await expectRefused(await api(q("owner:me"), { token: u.token }), 400, "q")).code).toBe("validation_failed");
    await expectRefused(await api(q("archived:yes"), { token: u.token }), 400, "q");
    await expectRefused(await api(q('"open quote'), { token: u.token }), 400, "q");
    await expectRefused(await api(`${q("archived:true")}&archived=false`, { token: u.token }), 400, "q");
    await expectRefused(await api("/chats?offset=-1", { token: u.token }), 400, "offset");
    await expectRefused(await api("/chats?offset=10001", { token: u.token }), 400, "offset");
    await expectRefused(await api("/chats?offset=two", { token: u.token }), 400, "offset");
    await expectRefused(await api("/chats?limit=501", { token: u.token }), 400, "limit");
  });

  it("never shows another user's chats, whatever the search", async () => {
    const u = await createTestUser();
    const other = await createTestUser();
    await newChat(other, "secret plans");
    expect(await expectJson<Chat[]>(await api(`/chats?q=${encodeURIComponent("secret")}`, { token: u.token }), 200)).toEqual([]);
  });
});

describe("GET /chats/{chat}/messages with before_id and limit", () => {
  it("answers the whole history with has_more false when no parameter is given", async () => {
    const u = await createTestUser();
    const chatId = await chatWithReplies(u, 4);
    const whole = await expectJson<Messages>(await api(`/chats/${chatId}/messages`, { token: u.token }), 200);
    expect(whole.messages.map((m) => m.content[0]!.text)).toEqual(["q0", "a1", "a2", "a3", "a4"]);
    expect(whole.has_more).toBe(false);
    expect(whole.queued_messages).toEqual([]);
  });

  it("pages backwards from the newest, oldest first within a page, until has_more is false", async () => {
    const u = await createTestUser();
    const chatId = await chatWithReplies(u, 6);
    const texts: string[][] = [];
    const more: boolean[] = [];
    let path = `/chats/${chatId}/messages?limit=3`;
    for (;;) {
      const page = await expectJson<Messages>(await api(path, { token: u.token }), 200);
      texts.push(page.messages.map((m) => m.content[0]!.text!));
      more.push(page.has_more);
      if (!page.has_more) break;
      path = `/chats/${chatId}/messages?limit=3&before_id=${page.messages[0]!.id}`;
    }
    expect(texts).toEqual([["a4", "a5", "a6"], ["a1", "a2", "a3"], ["q0"]]);
    expect(more).toEqual([true, true, false]);
    // before_id alone takes the default page size, which holds what is left here.
    const all = await expectJson<Messages>(await api(`/chats/${chatId}/messages`, { token: u.token }), 200);
    const rest = await expectJson<Messages>(
      await api(`/chats/${chatId}/messages?before_id=${all.messages[6]!.id}`, { token: u.token }),
      200,
    );
    expect([rest.messages.map((m) => m.id), rest.has_more]).toEqual([all.messages.slice(0, 6).map((m) => m.id), false]);
  });

  it("refuses a malformed cursor or limit with 400 and another user's chat with 404; another chat's id is a cursor like any", async () => {
    const u = await createTestUser();
    const other = await createTestUser();
    const chatId = await chatWithReplies(u, 1);
    const othersChat = await chatWithReplies(other, 1);
    const othersMessage = (await expectJson<Messages>(await api(`/chats/${othersChat}/messages`, { token: other.token }), 200)).messages[0]!
      .id;
    for (const bad of ["abc", "1.5", "-3", "0", "0x10", "1e3", "9007199254740993", crypto.randomUUID()])
      await expectRefused(await api(`/chats/${chatId}/messages?before_id=${bad}`, { token: u.token }), 400, "before_id");
    await expectRefused(await api(`/chats/${chatId}/messages?limit=0`, { token: u.token }), 400, "limit");
    await expectRefused(await api(`/chats/${chatId}/messages?limit=501`, { token: u.token }), 400, "limit");
    // The other chat was made after this one: its first message's id is past all of this chat's.
    const byOthers = await expectJson<Messages>(await api(`/chats/${chatId}/messages?before_id=${othersMessage}`, { token: u.token }), 200);
    expect(byOthers.messages.map((m) => m.content[0]!.text)).toEqual(["q0", "a1"]);
    await expectRefused(await api(`/chats/${othersChat}/messages?limit=1`, { token: u.token }), 404);
    await expectRefused(await api(`/chats/${othersChat}/messages?before_id=${othersMessage}`, { token: u.token }), 404);
  });
});
