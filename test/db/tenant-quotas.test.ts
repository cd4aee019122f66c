/**
 * Quotas that live in the database (docs/fairness.md "Quotas"): subagents per turn and per family,
 * and the purge of uploads no message attached. (Chats, sockets and upload bytes are refused over
 * real HTTP in test/e2e/hostile-tenants.test.ts.)
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendMessage } from "../../src/chats/transitions/index";
import { purgeUnattachedUploads } from "../../src/files/unattached-purge";
import { QuotaExceededError } from "../../src/limits/errors";
import { assertSubagentQuotas } from "../../src/subagents/quotas";
import { type Env, makeChat, makeEnv, text } from "./fixtures";
import { apply } from "./support/apply";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(() => env?.pool.end());

async function spawnChild(parentId: string): Promise<string> {
  const child = await env.store.create({
    organizationId: env.owner.organizationId,
    ownerId: env.owner.userId,
    parentChatId: parentId,
    content: text("sub task"),
  });
  return child.chat.id;
}

describe("subagent quotas", () => {
  it("count this turn's children (since the latest user message) and the family's, and refuse at the quota", async () => {
    const root = await makeChat(env, "W");
    const quotas = { perTurn: 2, perFamily: 3 };
    await spawnChild(root.chatId);
    await spawnChild(root.chatId);
    await expect(assertSubagentQuotas(env.pool, root.chatId, quotas)).rejects.toMatchObject({ quota: "subagents_per_turn", limit: 2 });
    // A new turn: the per-turn count starts again, the family's does not.
    await new Promise((r) => setTimeout(r, 5));
    await apply(env.store, sendMessage, root.chatId, { content: text("next turn"), busyBehavior: "queue" });
    await expect(assertSubagentQuotas(env.pool, root.chatId, quotas)).resolves.toBeUndefined();
    await spawnChild(root.chatId);
    const refused = await assertSubagentQuotas(env.pool, root.chatId, quotas).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(QuotaExceededError);
    expect(refused).toMatchObject({ quota: "subagents_per_family", limit: 3 });
  });
});

describe("the purge of unattached uploads", () => {
  async function upload(chatId: string | null, ageHours: number): Promise<string> {
    const id = randomUUID();
    await env.pool.query(
      `INSERT INTO chat_files (id, organization_id, owner_id, chat_id, name, media_type, size_bytes, storage_key, created_at)
       VALUES ($1, $2, $3, $4, 'f', 'text/plain', 10, $5, now() - $6::int * interval '1 hour')`,
      [id, env.owner.organizationId, env.owner.userId, chatId, `files/${id}`, ageHours],
    );
    return id;
  }

  it("deletes uploads no message attached once older than the TTL, row and bytes, and nothing else", async () => {
    const chat = await makeChat(env, "W");
    const oldLoose = await upload(null, 30);
    const newLoose = await upload(null, 1);
    const oldAttached = await upload(chat.chatId, 30);
    const deleted: string[] = [];
    const n = await purgeUnattachedUploads(env.pool, {
      olderThan: new Date(Date.now() - 24 * 3_600_000),
      deleteBytes: async (keys) => {
        deleted.push(...keys);
      },
    });
    expect(n).toBeGreaterThanOrEqual(1);
    expect(deleted).toContain(`files/${oldLoose}`);
    const left = (
      await env.pool.query(`SELECT id FROM chat_files WHERE id = ANY($1::uuid[])`, [[oldLoose, newLoose, oldAttached]])
    ).rows.map((r) => r.id);
    expect(left.sort()).toEqual([newLoose, oldAttached].sort());
    expect(deleted).not.toContain(`files/${newLoose}`);
    expect(deleted).not.toContain(`files/${oldAttached}`);
  });
});
