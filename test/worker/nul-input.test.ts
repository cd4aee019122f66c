/**
 * U+0000 anywhere in a request is a 400 naming the field, and writes nothing (Postgres refuses the
 * character in text and jsonb: it used to surface as a 500 from the database).
 */
import { describe, expect, it } from "vitest";
import { api, createTestUser, expectJson, withDb } from "./support/accounts";

interface ErrorBody {
  code: string;
  validations?: { field: string; detail: string }[];
}

const historyOf = (chatId: string) =>
  withDb(async (db) => {
    const { rows } = await db.$client.query(
      `SELECT (SELECT count(*) FROM chat_messages WHERE chat_id = $1)::int AS messages, (SELECT snapshot_version FROM chats WHERE id = $1)::int AS snapshot`,
      [chatId],
    );
    return rows[0] as { messages: number; snapshot: number };
  });

describe("NUL characters", () => {
  it("a message whose text holds U+0000 is refused with the field named, and nothing is written", async () => {
    const u = await createTestUser();
    const chat = await expectJson<{ id: string }>(await api("/chats", { token: u.token, body: { content: [] } }), 201);
    const before = await historyOf(chat.id);
    const res = await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: [{ type: "text", text: "a\u0000b" }] } });
    const body = await expectJson<ErrorBody>(res, 400);
    expect(body.code).toBe("validation_failed");
    expect(body.validations).toEqual([expect.objectContaining({ field: "content.0.text" })]);
    expect(await historyOf(chat.id)).toEqual(before);
  });

  it("a lone surrogate is refused the same way", async () => {
    const u = await createTestUser();
    const res = await api("/chats", { token: u.token, body: '{"content":[{"type":"text","text":"a\\ud800b"}]}' });
    const body = await expectJson<ErrorBody>(res, 400);
    expect(body.validations).toEqual([expect.objectContaining({ field: "content.0.text" })]);
  });

  it("create, labels and dynamic tool schemas are checked the same way", async () => {
    const u = await createTestUser();
    for (const body of [
      { content: [{ type: "text", text: "\u0000" }] },
      { content: [], title: "t\u0000" },
      { content: [], labels: { "k\u0000": "v" } },
      { content: [], unsafe_dynamic_tools: [{ name: "t", input_schema: { type: "object", description: "\u0000" } }] },
    ]) {
      const res = await api("/chats", { token: u.token, body });
      expect((await expectJson<ErrorBody>(res, 400)).code).toBe("validation_failed");
    }
    const chats = await expectJson<unknown[]>(await api("/chats", { token: u.token }), 200);
    expect(chats).toEqual([]);
  });
});
