/**
 * `GET /chats/{chat}/prompts`, as Coder's composer reads it for up-arrow recall: each shown user
 * message's text parts joined, newest first, blank prompts skipped, `limit` 1..2000 (default 500),
 * another user's chat a 404.
 */
import { describe, expect, it } from "vitest";
import { api, createTestUser, expectJson, type TestUser, withDb } from "./support/accounts";

interface Prompts {
  prompts: { id: number; text: string }[];
}

const parts = (...texts: string[]) => texts.map((text) => ({ type: "text", text }));

/** Sends a prompt to a waiting chat (it enters history), then stops the turn the worker-less project never runs. */
async function prompt(u: TestUser, chatId: string, ...texts: string[]): Promise<void> {
  await expectJson(await api(`/chats/${chatId}/messages`, { token: u.token, body: { content: parts(...texts) } }), 200);
  await expectJson(await api(`/chats/${chatId}/interrupt`, { method: "POST", token: u.token }), 200);
}

describe("GET /chats/{chat}/prompts", () => {
  it("lists the user messages' text newest first, joined per message, without blank or deleted prompts", async () => {
    const u = await createTestUser();
    const chat = await expectJson<{ id: string }>(await api("/chats", { token: u.token, body: { content: [] } }), 201);
    await prompt(u, chat.id, "first");
    await prompt(u, chat.id, "second ", "in two parts");
    await prompt(u, chat.id, "   ");
    await prompt(u, chat.id, "fourth");

    const all = await expectJson<Prompts>(await api(`/chats/${chat.id}/prompts`, { token: u.token }), 200);
    expect(all.prompts.map((p) => p.text)).toEqual(["fourth", "second in two parts", "first"]);
    const userIds = await withDb(async (db) => {
      const { rows } = await db.$client.query<{ id: string; text: string }>(
        "SELECT id, content->0->>'text' AS text FROM chat_messages WHERE chat_id = $1 AND role = 'user' ORDER BY id DESC",
        [chat.id],
      );
      return rows.map((r) => ({ ...r, id: Number(r.id) })); // bigint arrives as a string
    });
    expect(all.prompts.map((p) => p.id)).toEqual(userIds.filter((r) => r.text.trim() !== "").map((r) => r.id));

    const two = await expectJson<Prompts>(await api(`/chats/${chat.id}/prompts?limit=2`, { token: u.token }), 200);
    expect(two.prompts.map((p) => p.text)).toEqual(["fourth", "second in two parts"]);

    // A message an edit replaced is no longer history, nor a prompt.
    await withDb((db) => db.$client.query("UPDATE chat_messages SET deleted = true WHERE id = $1", [all.prompts[0]!.id]));
    const after = await expectJson<Prompts>(await api(`/chats/${chat.id}/prompts`, { token: u.token }), 200);
    expect(after.prompts.map((p) => p.text)).toEqual(["second in two parts", "first"]);
  });

  it("answers an empty list for a chat without prompts, 400 for a limit out of bounds, 404 for another user's chat", async () => {
    const u = await createTestUser();
    const other = await createTestUser();
    const chat = await expectJson<{ id: string }>(await api("/chats", { token: u.token, body: { content: [] } }), 201);
    expect(await expectJson<Prompts>(await api(`/chats/${chat.id}/prompts`, { token: u.token }), 200)).toEqual({ prompts: [] });
    for (const limit of ["0", "2001", "many"])
      expect((await api(`/chats/${chat.id}/prompts?limit=${limit}`, { token: u.token })).status).toBe(400);
    expect((await api(`/chats/${chat.id}/prompts?limit=2000`, { token: u.token })).status).toBe(200);
    const foreign = await expectJson<{ code: string }>(await api(`/chats/${chat.id}/prompts`, { token: other.token }), 404);
    expect(foreign.code).toBe("not_found");
  });
});
