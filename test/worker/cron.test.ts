/**
 * The Cron Trigger's handler inside workerd: one run archives an old idle chat (auto-archive,
 * CHAT_AUTO_ARCHIVE_DAYS = 90 from wrangler.toml) and purges an archived chat past retention,
 * its file's bytes deleted from the real (local) R2 bucket. The retention is set for this run
 * only, to ten years, so no other test file's chat can qualify; the shared database's other
 * chats are all younger than 90 days.
 */
import { createExecutionContext, createScheduledController, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ChatStore } from "../../src/chats/store";
import { commitStep } from "../../src/chats/transitions/commit-step";
import { finishTurn } from "../../src/chats/transitions/finish-turn";
import worker from "../../src/index";
import { api, BASE, createTestUser, expectJson, withDb, type TestUser } from "./support/accounts";
import { prefetchFor } from "../../src/chats/lock-prefetch";

async function uploaded(user: TestUser, body: string): Promise<string> {
  const res = await SELF.fetch(`${BASE}/chats/files?organization=${user.organizationId}&name=a.txt`, {
    method: "POST",
    headers: { authorization: `Bearer ${user.token}`, "content-type": "text/plain" },
    body,
  });
  return (await expectJson<{ id: string }>(res, 201)).id;
}

/** A chat created over HTTP, then answered and finished (the chat worker is off in this project). */
async function idleChat(user: TestUser, content: unknown[]): Promise<string> {
  const chat = await expectJson<{ id: string }>(await api("/chats", { token: user.token, body: { content } }), 201);
  await withDb(async (db) => {
    const store = new ChatStore(db.$client);
    await store.update(chat.id, (tx) => commitStep(tx, { messages: [{ role: "assistant", content: [{ type: "text", text: "ok" }] }] }));
    await store.update(chat.id, (tx) => finishTurn(tx), { prefetchTail: prefetchFor(finishTurn, undefined) });
  });
  return chat.id;
}

describe("the scheduled handler", () => {
  it("auto-archives an old idle chat and purges a chat archived past retention, with its file", async () => {
    const u = await createTestUser();
    const old = await idleChat(u, [{ type: "text", text: "long ago" }]);
    await withDb(async (db) => {
      await db.$client.query(`UPDATE chats SET created_at = now() - interval '200 days' WHERE id = $1`, [old]);
      await db.$client.query(`UPDATE chat_messages SET created_at = now() - interval '200 days' WHERE chat_id = $1`, [old]);
    });
    const fresh = await idleChat(u, [{ type: "text", text: "today" }]);

    const fileId = await uploaded(u, "bytes to purge");
    const doomed = await idleChat(u, [
      { type: "text", text: "see file" },
      { type: "file", file_id: fileId },
    ]);
    await expectJson(await api(`/chats/${doomed}`, { method: "PATCH", token: u.token, body: { archived: true } }), 204);
    const storageKey = await withDb(async (db) => {
      await db.$client.query(`UPDATE chats SET archived_at = now() - interval '4000 days' WHERE id = $1`, [doomed]);
      const { rows } = await db.$client.query<{ storage_key: string }>(`SELECT storage_key FROM chat_files WHERE id = $1`, [fileId]);
      return rows[0]!.storage_key;
    });
    expect(await env.FILES.get(storageKey)).not.toBeNull();

    const ctx = createExecutionContext();
    const tenYears = { ...env, CHAT_ARCHIVE_RETENTION_DAYS: "3650" } as unknown as Env;
    await worker.scheduled(createScheduledController({ cron: "* * * * *" }), tenYears, ctx);
    await waitOnExecutionContext(ctx);

    expect((await expectJson<{ archived: boolean }>(await api(`/chats/${old}`, { token: u.token }), 200)).archived).toBe(true);
    expect((await expectJson<{ archived: boolean }>(await api(`/chats/${fresh}`, { token: u.token }), 200)).archived).toBe(false);
    expect((await api(`/chats/${doomed}`, { token: u.token })).status).toBe(404);
    expect(await env.FILES.get(storageKey)).toBeNull();
  });
});
