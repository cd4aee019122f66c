import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, createTestUser } from "./support/accounts";

const auth = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

describe("chat routes smoke", () => {
  it("creates a chat, sends a message, reads it back", async () => {
    const u = await createTestUser();
    const res = await SELF.fetch(`${BASE}/chats`, {
      method: "POST",
      headers: auth(u.token),
      body: JSON.stringify({ content: [{ type: "text", text: "hello" }] }),
    });
    const chat = (await res.json()) as { id: string; status: string };
    expect(res.status, JSON.stringify(chat)).toBe(201);
    expect(chat.status).toBe("running");
    const send = await SELF.fetch(`${BASE}/chats/${chat.id}/messages`, {
      method: "POST",
      headers: auth(u.token),
      body: JSON.stringify({ content: [{ type: "text", text: "again" }] }),
    });
    const sent = await send.json();
    expect(send.status, JSON.stringify(sent)).toBe(200);
    expect(sent).toMatchObject({ queued: true });
    const msgs = await SELF.fetch(`${BASE}/chats/${chat.id}/messages`, { headers: auth(u.token) });
    const body = (await msgs.json()) as { messages: unknown[]; queued_messages: unknown[] };
    expect(body.messages).toHaveLength(1);
    expect(body.queued_messages).toHaveLength(1);
    const other = await createTestUser();
    const hidden = await SELF.fetch(`${BASE}/chats/${chat.id}/messages`, {
      method: "POST",
      headers: auth(other.token),
      body: JSON.stringify({ content: [{ type: "text", text: "x" }] }),
    });
    expect(hidden.status).toBe(404);
    const archive = await SELF.fetch(`${BASE}/chats/${chat.id}`, {
      method: "PATCH",
      headers: auth(u.token),
      body: JSON.stringify({ archived: true }),
    });
    expect(archive.status).toBe(409);
    expect(await archive.json()).toMatchObject({ code: "transition_not_allowed", detail: "SetArchived is not allowed from R1" });
  });
});
