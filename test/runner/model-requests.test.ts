/**
 * What the model receives when chats run by themselves (docs/model-requests.md): attachments as
 * file parts on each transport, evicted or foreign files as the expired placeholder, the clamped
 * reasoning effort, the transport a config selects, and the owner's attribution id. Checked at the
 * fake model: its `/files` reply and its request log (`GET /_requests`).
 */
import { env, SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { attributionTokenName } from "../../src/accounts/synthetic-key";
import { createPool } from "../../src/db/client";
import type { ModelConfigOptions } from "../../src/model-configs/options";
import { apiKeys, users } from "../../src/db/schema/auth";
import { ChatStore } from "../../src/chats/store";
import { sendMessage } from "../../src/chats/transitions/send-message";
import { api, BASE, createTestUser, expectJson, type TestUser, withDb } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithProvider } from "./support/model-user";
import { turnRequestsWith } from "../support/fake-model-requests";
import { prefetchFor } from "../../src/chats/lock-prefetch";

const nonce = () => crypto.randomUUID().slice(0, 8);

interface Message {
  role: string;
  content: { type: string; text?: string }[];
}

afterAll(() => releaseChatsOf(modelUsers), 60_000);

async function upload(user: TestUser, bytes: Uint8Array, mediaType: string, name: string): Promise<string> {
  const res = await SELF.fetch(`${BASE}/chats/files?organization=${user.organizationId}&name=${name}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${user.token}`, "Content-Type": mediaType },
    body: bytes,
  });
  return (await expectJson<{ id: string }>(res, 201)).id;
}

async function start(user: TestUser, content: unknown[], extra: Record<string, unknown> = {}): Promise<string> {
  return (await expectJson<{ id: string }>(await api("/chats", { token: user.token, body: { content, ...extra } }), 201)).id;
}

async function statusOf(user: TestUser, id: string): Promise<string> {
  return (await expectJson<{ status: string }>(await api(`/chats/${id}`, { token: user.token }), 200)).status;
}

async function settled(user: TestUser, id: string): Promise<Message[]> {
  await expect.poll(() => statusOf(user, id), { timeout: 20_000, interval: 100 }).toBe("waiting");
  return (await expectJson<{ messages: Message[] }>(await api(`/chats/${id}/messages`, { token: user.token }), 200)).messages;
}

const textOf = (m: Message | undefined) => (m?.content ?? []).map((p) => p.text ?? "").join("");

async function sha16(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("")
    .slice(0, 16);
}

const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (c) =>
  c.charCodeAt(0),
);
const PDF = new TextEncoder().encode("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");

describe("attachments reach the model", () => {
  const transports = [
    { name: "Responses", type: "openai" as const, model: "gpt-5", wire: ["input_image", "input_file"] },
    { name: "Chat Completions", type: "openai" as const, model: "gpt-4o", wire: ["image_url", "file"] },
    { name: "Anthropic Messages", type: "anthropic" as const, model: "claude-sonnet-4-6", wire: ["image", "document"] },
  ];

  it.each(transports)("sends an uploaded image and PDF as file parts on $name", async ({ type, model, wire }) => {
    const u = await userWithProvider(type, model);
    const png = await upload(u, PNG, "image/png", "dot.png");
    const pdf = await upload(u, PDF, "application/pdf", "doc.pdf");
    const id = await start(u, [
      { type: "text", text: `/files ${nonce()}` },
      { type: "file", file_id: png },
      { type: "file", file_id: pdf },
    ]);
    const messages = await settled(u, id);
    expect(textOf(messages.at(-1))).toBe(
      `files: ${wire[0]} image/png ${PNG.length} bytes sha256:${await sha16(PNG)}; ` +
        `${wire[1]} application/pdf ${PDF.length} bytes sha256:${await sha16(PDF)}`,
    );
  });

  it("names in text what the transport does not take and what exceeds the prompt's byte budget", async () => {
    const u = await userWithProvider("openai", "gpt-5");
    // Two 9 MiB images: the first fits MAX_PROMPT_FILE_BYTES (16 MiB), the second no longer does.
    const big = (fill: number) => new Uint8Array(9 * 1024 * 1024).fill(fill);
    const first = await upload(u, big(1), "image/png", "first.png");
    const second = await upload(u, big(2), "image/png", "second.png");
    const notes = await upload(u, new TextEncoder().encode("some notes"), "text/plain", "notes.txt");
    const probe = `/files ${nonce()}`;
    const id = await start(u, [
      { type: "text", text: probe },
      { type: "file", file_id: first },
      { type: "file", file_id: second },
      { type: "file", file_id: notes },
    ]);
    const messages = await settled(u, id);
    expect(textOf(messages.at(-1))).toBe(`files: input_image image/png ${9 * 1024 * 1024} bytes sha256:${await sha16(big(1))}`);
    const [request] = await turnRequestsWith(probe);
    expect(request?.userTexts[0]).toContain("[file: second.png (image/png)]");
    expect(request?.userTexts[0]).toContain("[file: notes.txt (text/plain)]");
    expect(request?.userTexts[0]).not.toContain("expired");
  });

  it("names in text an image over Anthropic's size limit", async () => {
    const u = await userWithProvider("anthropic", "claude-sonnet-4-6");
    const large = await upload(u, new Uint8Array(4 * 1024 * 1024).fill(7), "image/png", "large.png");
    const probe = `/files ${nonce()}`;
    const messages = await settled(
      u,
      await start(u, [
        { type: "text", text: probe },
        { type: "file", file_id: large },
      ]),
    );
    expect(textOf(messages.at(-1))).toBe("files: none");
    expect((await turnRequestsWith(probe))[0]?.userTexts[0]).toContain("[file: large.png (image/png)]");
  });

  it("sends an evicted upload, and one missing from storage, as the expired placeholder", async () => {
    const u = await userWithProvider("openai", "gpt-5");
    const evicted = await upload(u, PNG, "image/png", "evicted.png");
    const missing = await upload(u, PDF, "application/pdf", "missing.pdf");
    const id = await start(u, [
      { type: "text", text: `look ${nonce()}` },
      { type: "file", file_id: evicted },
      { type: "file", file_id: missing },
    ]);
    await settled(u, id);
    // Eviction deletes the file's row (src/files/files.ts linkFiles); storage can lose an object too.
    await withDb((db) => db.$client.query(`DELETE FROM chat_files WHERE id = $1`, [evicted]));
    const key = await withDb(async (db) => (await db.$client.query(`SELECT storage_key FROM chat_files WHERE id = $1`, [missing])).rows[0]);
    await env.FILES.delete(String(key.storage_key));

    const probe = `/files ${nonce()}`;
    await expectJson(await api(`/chats/${id}/messages`, { token: u.token, body: { content: [{ type: "text", text: probe }] } }), 200);
    const messages = await settled(u, id);
    expect(textOf(messages.at(-1))).toBe("files: none");
    const [request] = await turnRequestsWith(probe);
    expect(request?.userTexts[0]).toContain("[file: evicted.png (image/png): the content has expired]");
    expect(request?.userTexts[0]).toContain("[file: missing.pdf (application/pdf): the content has expired]");
  });

  it("never sends the bytes of another user's file named in a message", async () => {
    const u = await userWithProvider("openai", "gpt-5");
    const other = await createTestUser({ organizationId: u.organizationId });
    const theirs = await upload(other, PNG, "image/png", "theirs.png");
    const id = await start(u, [{ type: "text", text: `hello ${nonce()}` }]);
    await settled(u, id);
    // A part naming a file this chat does not hold cannot come through the API; write it directly.
    const part = { type: "file", file_id: theirs, media_type: "image/png", name: "theirs.png" };
    await withDb((db) =>
      db.$client.query(`INSERT INTO chat_messages (chat_id, role, content) VALUES ($1, 'user', $2::jsonb)`, [id, JSON.stringify([part])]),
    );
    const probe = `/files ${nonce()}`;
    await expectJson(await api(`/chats/${id}/messages`, { token: u.token, body: { content: [{ type: "text", text: probe }] } }), 200);
    const messages = await settled(u, id);
    expect(textOf(messages.at(-1))).toBe("files: none");
    const [request] = await turnRequestsWith(probe);
    expect(request?.files).toEqual([]);
    expect(request?.userTexts.join("\n")).toContain("[file: theirs.png (image/png): the content has expired]");
  });
});

describe("effort, transport and attribution on the wire", () => {
  it("sends the turn's effort clamped to the config's max, and the default when none was chosen", async () => {
    const u = await userWithProvider("openai", "gpt-5", { reasoning_effort: { default: "low", max: "medium" } });
    const first = `first ${nonce()}`;
    const id = await start(u, [{ type: "text", text: first }], { reasoning_effort: "xhigh" });
    await settled(u, id);
    expect((await turnRequestsWith(first))[0]?.params.reasoning).toMatchObject({ effort: "medium" });

    const other = await userWithProvider("openai", "gpt-5", { reasoning_effort: { default: "low", max: "medium" } });
    const plain = `plain ${nonce()}`;
    await settled(other, await start(other, [{ type: "text", text: plain }]));
    expect((await turnRequestsWith(plain))[0]?.params.reasoning).toMatchObject({ effort: "low" });
  });

  it("raises none to low for GPT-6 Astra", async () => {
    const u = await userWithProvider("openai", "gpt-6-astra-2026-01-01", { reasoning_effort: { default: "none", max: "high" } });
    const text = `astra ${nonce()}`;
    await settled(u, await start(u, [{ type: "text", text }], { reasoning_effort: "none" }));
    const [request] = await turnRequestsWith(text);
    expect(request?.endpoint).toBe("responses");
    expect(request?.params.reasoning).toMatchObject({ effort: "low" });
  });

  it("sends Claude before 4.6 budget thinking", async () => {
    const u = await userWithProvider("anthropic", "claude-sonnet-4-5", { reasoning_effort: { default: "medium", max: "max" } });
    const text = `claude ${nonce()}`;
    await settled(u, await start(u, [{ type: "text", text }]));
    expect((await turnRequestsWith(text))[0]?.params.thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
  });

  it("picks the transport from the model list unless use_responses_api overrides it", async () => {
    const cases: [string, ModelConfigOptions, string][] = [
      ["gpt-4o", {}, "chat_completions"],
      ["gpt-5", {}, "responses"],
      ["gpt-4o", { openai_config: { use_responses_api: true } }, "responses"],
      ["gpt-5", { openai_config: { use_responses_api: false } }, "chat_completions"],
    ];
    await Promise.all(
      cases.map(async ([model, options, endpoint]) => {
        const u = await userWithProvider("openai", model, options);
        const text = `transport ${nonce()}`;
        await settled(u, await start(u, [{ type: "text", text }]));
        expect((await turnRequestsWith(text)).map((r) => r.endpoint)).toEqual([endpoint]);
      }),
    );
  });

  it("attributes every request to the owner's synthetic key, stable across turns", async () => {
    const u = await userWithProvider("openai", "gpt-4o");
    const first = `attr ${nonce()}`;
    const id = await start(u, [{ type: "text", text: first }]);
    await settled(u, id);
    const second = `again ${nonce()}`;
    await expectJson(await api(`/chats/${id}/messages`, { token: u.token, body: { content: [{ type: "text", text: second }] } }), 200);
    await settled(u, id);
    const keys = await withDb((db) =>
      db
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(eq(apiKeys.tokenName, attributionTokenName(u.id))),
    );
    expect(keys).toHaveLength(1);
    for (const text of [first, second]) {
      const [request] = await turnRequestsWith(text);
      expect(JSON.parse(request?.headers["cf-aig-metadata"] ?? "{}")).toEqual({ chatd_key_id: keys[0]!.id, chat_id: id });
      expect(request?.params.user).toBe(keys[0]!.id);
    }
  });

  it("blocks generation for a suspended owner with an error that says so, without calling the model", async () => {
    const u = await userWithProvider("openai", "gpt-4o");
    const id = await start(u, []);
    const text = `suspended ${nonce()}`;
    await withDb((db) => db.update(users).set({ suspended: true }).where(eq(users.id, u.id)));
    try {
      // A suspended user cannot call the API: the message goes in through the store, the object is woken.
      const pool = createPool({ databaseUrl: env.DATABASE_URL, wsProxy: env.NEON_WS_PROXY, max: 2 });
      try {
        const input = { content: [{ type: "text" as const, text }], busyBehavior: "queue" as const };
        await new ChatStore(pool).update(id, (tx) => sendMessage(tx, input), { prefetchTail: prefetchFor(sendMessage, input) });
      } finally {
        await pool.end();
      }
      const stub = env.CHAT_OBJECT.get(env.CHAT_OBJECT.idFromName(id));
      await stub.wake({ chat_id: id, snapshot_version: 0 });
      const chatRow = () =>
        withDb(
          async (db) => (await db.$client.query(`SELECT status, last_error, generation_attempt FROM chats WHERE id = $1`, [id])).rows[0],
        );
      await expect.poll(async () => (await chatRow()).status, { timeout: 20_000, interval: 100 }).toBe("error");
      const chat = await chatRow();
      expect(chat.last_error).toMatch(/suspended/);
      expect(Number(chat.generation_attempt)).toBe(0);
      expect(await turnRequestsWith(text)).toEqual([]);
    } finally {
      // The teardown archives through the API, which refuses a suspended user.
      await withDb((db) => db.update(users).set({ suspended: false }).where(eq(users.id, u.id)));
    }
  });
});
