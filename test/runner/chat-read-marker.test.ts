/**
 * Coder's Chat fields over HTTP with the real worker: `client_type` as created, `shared` false, and
 * `has_unread`, which a reply sets and the owner's stream clears when it opens and when it closes
 * (Coder moves its read cursor on stream connect and disconnect, not on each message).
 */
import { afterAll, describe, expect, it } from "vitest";
import { api, expectJson, type TestUser } from "../worker/support/accounts";
import { openStream, openWatch } from "./support/stream-client";
import { modelUsers, releaseChatsOf, userWithModel } from "./support/model-user";
import type { Chat } from "./support/wire";

afterAll(() => releaseChatsOf(modelUsers), 60_000);

const chatOf = async (u: TestUser, id: string) =>
  expectJson<Chat & { shared: boolean }>(await api(`/chats/${id}`, { token: u.token }), 200);

async function settled(u: TestUser, id: string): Promise<void> {
  await expect.poll(async () => (await chatOf(u, id)).status, { timeout: 20_000, interval: 100 }).toBe("waiting");
}

const unreadOf = async (u: TestUser, id: string) => (await chatOf(u, id)).has_unread;

describe("Chat.has_unread and client_type", () => {
  it("is set by a reply nobody watched, cleared when the owner's stream opens, set again, cleared when it closes", async () => {
    const u = await userWithModel();
    const created = await expectJson<Chat>(
      await api("/chats", { token: u.token, body: { content: [{ type: "text", text: "hello" }], client_type: "ui" } }),
      201,
    );
    expect(created).toMatchObject({ client_type: "ui", shared: false, has_unread: false, children: [] });
    await settled(u, created.id);
    expect(await unreadOf(u, created.id)).toBe(true);
    const listed = await expectJson<Chat[]>(await api("/chats", { token: u.token }), 200);
    expect(listed.find((c) => c.id === created.id)).toMatchObject({ has_unread: true, client_type: "ui" });

    const stream = await openStream(u, created.id);
    await stream.until((e) => e.type === "status");
    await expect.poll(() => unreadOf(u, created.id), { timeout: 10_000, interval: 100 }).toBe(false);

    // A reply while the stream is open is read only when the owner leaves (or comes back).
    await expectJson(
      await api(`/chats/${created.id}/messages`, { token: u.token, body: { content: [{ type: "text", text: "more" }] } }),
      200,
    );
    // The send moved the chat to running before it answered: settled is the reply's commit.
    await settled(u, created.id);
    expect(await unreadOf(u, created.id)).toBe(true);
    // The owner's list watch hears that the chat was read: no transition moves it, the marker does.
    const watch = await openWatch(u);
    stream.ws.close();
    await expect.poll(() => unreadOf(u, created.id), { timeout: 10_000, interval: 100 }).toBe(false);
    await watch.until(created.id, (e) => e.chat.has_unread === false, 10_000);
    watch.ws.close();
  });

  it("calls a chat created without client_type an api chat, and refuses another value", async () => {
    const u = await userWithModel();
    const chat = await expectJson<Chat>(await api("/chats", { token: u.token, body: { content: [] } }), 201);
    expect(chat).toMatchObject({ client_type: "api", has_unread: false, shared: false });
    const bad = await api("/chats", { token: u.token, body: { content: [], client_type: "cli" } });
    expect(bad.status).toBe(400);
  });
});
