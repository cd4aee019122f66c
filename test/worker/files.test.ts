/**
 * Uploads, downloads and file parts in messages, with the spec's link rules: a file belongs to at
 * most one chat, and a chat holds at most CHAT_MAX_ATTACHMENTS_PER_CHAT files (3 in this project's
 * test config), its earliest uploads evicted to make room.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, BASE, createTestUser, expectJson, type TestUser } from "./support/accounts";

async function upload(user: TestUser, body: string, type = "text/plain", name = "notes.txt"): Promise<Response> {
  return SELF.fetch(`${BASE}/chats/files?organization=${user.organizationId}&name=${encodeURIComponent(name)}`, {
    method: "POST",
    headers: { authorization: `Bearer ${user.token}`, "content-type": type },
    body,
  });
}

async function uploaded(user: TestUser, body: string, name = "notes.txt"): Promise<string> {
  return (await expectJson<{ id: string }>(await upload(user, body, "text/plain", name), 201)).id;
}

const filePart = (id: string) => ({ type: "file", file_id: id });
const textPart = (t: string) => ({ type: "text", text: t });

describe("file uploads", () => {
  it("stores bytes and gives them back to their owner only", async () => {
    const u = await createTestUser();
    const id = await uploaded(u, "hello file", "a b.txt");
    const res = await api(`/chats/files/${id}`, { token: u.token });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain");
    expect(await res.text()).toBe("hello file");
    const other = await createTestUser();
    expect((await api(`/chats/files/${id}`, { token: other.token })).status).toBe(404);
  });

  it("rejects a missing media type, an empty body, a foreign organization and more than 10 MiB", async () => {
    const u = await createTestUser();
    expect((await upload(u, "x", "")).status).toBe(400);
    expect((await upload(u, "")).status).toBe(400);
    const other = await createTestUser();
    const foreign = await SELF.fetch(`${BASE}/chats/files?organization=${other.organizationId}`, {
      method: "POST",
      headers: { authorization: `Bearer ${u.token}`, "content-type": "text/plain" },
      body: "x",
    });
    expect(foreign.status).toBe(404);
    const big = await upload(u, "x".repeat(10 * 1024 * 1024 + 1));
    expect(big.status).toBe(413);
  });
});

describe("file parts in messages", () => {
  it("resolves a file part to its name and media type and links it to the chat", async () => {
    const u = await createTestUser();
    const id = await uploaded(u, "data", "report.txt");
    const chat = await expectJson<{ id: string }>(
      await api("/chats", { token: u.token, body: { content: [textPart("see"), filePart(id)] } }),
      201,
    );
    const read = await expectJson<{ messages: { content: unknown[] }[] }>(await api(`/chats/${chat.id}/messages`, { token: u.token }), 200);
    expect(read.messages[0]?.content[1]).toEqual({ type: "file", file_id: id, media_type: "text/plain", name: "report.txt" });
  });

  it("refuses a file another chat holds, another user's file, and an unknown one, writing nothing", async () => {
    const u = await createTestUser();
    const id = await uploaded(u, "data");
    await expectJson(await api("/chats", { token: u.token, body: { content: [filePart(id)] } }), 201);
    const second = await expectJson<{ id: string }>(await api("/chats", { token: u.token, body: { content: [] } }), 201);
    const held = await expectJson<{ code: string; validations: { field: string }[] }>(
      await api(`/chats/${second.id}/messages`, { token: u.token, body: { content: [filePart(id)] } }),
      400,
    );
    expect(held.validations[0]?.field).toBe("content");
    const stranger = await createTestUser();
    const theirs = await uploaded(stranger, "secret");
    expect((await api(`/chats/${second.id}/messages`, { token: u.token, body: { content: [filePart(theirs)] } })).status).toBe(400);
    expect((await api("/chats", { token: u.token, body: { content: [filePart(crypto.randomUUID())] } })).status).toBe(400);
    const after = await expectJson<{ messages: unknown[] }>(await api(`/chats/${second.id}/messages`, { token: u.token }), 200);
    expect(after.messages).toEqual([]);
  });

  it("evicts the chat's earliest uploads beyond the cap, never the message's own files", async () => {
    const u = await createTestUser();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await uploaded(u, `file ${i}`, `f${i}.txt`));
    const chat = await expectJson<{ id: string }>(
      await api("/chats", { token: u.token, body: { content: [filePart(ids[0]!), filePart(ids[1]!)] } }),
      201,
    );
    // Two more: the chat would hold 4 > 3, so the earliest (ids[0]) goes.
    await expectJson(
      await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: [filePart(ids[2]!), filePart(ids[3]!)] } }),
      200,
    );
    await expect.poll(async () => (await api(`/chats/files/${ids[0]}`, { token: u.token })).status).toBe(404);
    for (const kept of ids.slice(1, 4)) expect((await api(`/chats/files/${kept}`, { token: u.token })).status).toBe(200);
    // A message that alone exceeds the cap is rejected.
    const extra = [await uploaded(u, "a"), await uploaded(u, "b"), await uploaded(u, "c"), ids[4]!];
    const tooMany = await expectJson<{ validations: { detail: string }[] }>(
      await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: extra.map(filePart) } }),
      400,
    );
    expect(tooMany.validations[0]?.detail).toMatch(/more than a chat may hold/);
  });
});
