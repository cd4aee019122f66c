/**
 * The purge (src/chats/purge.ts, src/cron/purge.ts): long-expired synthetic attribution keys, and
 * archived families past the retention period with their files, in bounded batches. On a
 * database of its own: the purge reads every key and chat of the deployment.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAttributionKey } from "../../src/accounts/synthetic-key";
import { ATTRIBUTION_KEY_PURGE_AFTER_MS, purgeTick } from "../../src/cron/purge";
import { createApiKey, TOKEN_LOGIN_TYPE } from "../../src/accounts/api-keys";
import { LOCK_NAMESPACE } from "../../src/db/advisory-lock";
import { dayCutoff } from "../../src/chats/auto-archive";
import { insertFile } from "../../src/files/files";
import { findPurgeableChats, purgeArchivedFamily, purgeExpiredAttributionKeys } from "../../src/chats/purge";
import { makeChat, makeOwner, stateOf, text } from "./fixtures";
import { makeWorkerEnv, type WorkerEnv } from "./support/worker-env";
import { finishError } from "../../src/chats/transitions/index";
import { apply } from "./support/apply";

const DAY_MS = 24 * 60 * 60 * 1000;
const RETENTION_DAYS = 30;

let env: WorkerEnv;
beforeAll(async () => {
  env = await makeWorkerEnv("purge");
});
afterAll(() => env?.close());

const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);

async function keyExists(id: string): Promise<boolean> {
  const { rows } = await env.pool.query(`SELECT 1 FROM api_keys WHERE id = $1`, [id]);
  return rows.length === 1;
}

/** A fresh user's attribution key, minted as if its last model call was `days` ago (it expires 30 days after). */
async function attributionKeyUsed(days: number): Promise<{ userId: string; keyId: string }> {
  const { userId } = await makeOwner(env.pool);
  return { userId, keyId: await ensureAttributionKey(env.own.db, userId, daysAgo(days)) };
}

/** An archived root with a child, a queued message and two files; archived `days` ago. */
async function archivedFamily(days: number): Promise<{ root: string; child: string; storageKeys: string[] }> {
  const root = await makeChat(env, "E1");
  const child = await env.store.create({
    organizationId: env.owner.organizationId,
    ownerId: env.owner.userId,
    parentChatId: root.chatId,
    content: text("sub"),
  });
  await apply(env.store, finishError, child.chat.id, { error: "failed" });
  const storageKeys: string[] = [];
  for (const chatId of [root.chatId, child.chat.id]) {
    const id = randomUUID();
    const storageKey = `files/${id}`;
    await insertFile(env.pool, {
      id,
      organizationId: env.owner.organizationId,
      ownerId: env.owner.userId,
      name: "a.txt",
      mediaType: "text/plain",
      sizeBytes: 1,
      storageKey,
    });
    await env.pool.query(`UPDATE chat_files SET chat_id = $1 WHERE id = $2`, [chatId, id]);
    storageKeys.push(storageKey);
  }
  await env.store.setArchived(root.chatId, true);
  await env.pool.query(`UPDATE chats SET archived_at = now() - $2::interval WHERE id = ANY($1::uuid[])`, [
    [root.chatId, child.chat.id],
    `${days} days`,
  ]);
  return { root: root.chatId, child: child.chat.id, storageKeys };
}

async function rowsOf(chatIds: readonly string[]): Promise<{ chats: number; messages: number; queued: number; files: number }> {
  const { rows } = await env.pool.query<{ chats: number; messages: number; queued: number; files: number }>(
    `SELECT (SELECT count(*)::int FROM chats WHERE id = ANY($1::uuid[])) AS chats,
            (SELECT count(*)::int FROM chat_messages WHERE chat_id = ANY($1::uuid[])) AS messages,
            (SELECT count(*)::int FROM chat_queued_messages WHERE chat_id = ANY($1::uuid[])) AS queued,
            (SELECT count(*)::int FROM chat_files WHERE chat_id = ANY($1::uuid[])) AS files`,
    [chatIds],
  );
  return rows[0]!;
}

/** Deletes whatever earlier tests left purgeable, so counts below are exact. */
async function drain(): Promise<void> {
  await purgeTick(env.store, { retentionDays: RETENTION_DAYS, now: new Date(), limit: 10_000, deleteFiles: async () => {} });
}

describe("purge of synthetic attribution keys", () => {
  it("deletes attribution keys expired long ago, and no live, recently expired or user-created key", async () => {
    await drain();
    const longExpired = await attributionKeyUsed(100); // expired 70 days ago
    const recentlyExpired = await attributionKeyUsed(40); // expired 10 days ago
    const live = await attributionKeyUsed(0);
    // A user's own token that happens to carry the synthetic name, and a full-scope key, both long expired.
    const user = await makeOwner(env.pool);
    const named = await createApiKey(env.own.db, {
      userId: user.userId,
      tokenName: `chatd_${user.userId}_session_token`,
      loginType: TOKEN_LOGIN_TYPE,
      expiresAt: daysAgo(400),
    });
    const ordinary = await createApiKey(env.own.db, {
      userId: user.userId,
      tokenName: "cli",
      loginType: TOKEN_LOGIN_TYPE,
      expiresAt: daysAgo(400),
    });

    const result = await purgeTick(env.store, { retentionDays: 0, now: new Date(), deleteFiles: async () => {} });
    expect(result.keys).toBe(1);
    expect(await keyExists(longExpired.keyId)).toBe(false);
    for (const id of [recentlyExpired.keyId, live.keyId, named.key.id, ordinary.key.id]) expect(await keyExists(id), id).toBe(true);
    // The owner's next model call mints a new key.
    const next = await ensureAttributionKey(env.own.db, longExpired.userId, new Date());
    expect(next).not.toBe(longExpired.keyId);
    expect(ATTRIBUTION_KEY_PURGE_AFTER_MS).toBe(30 * DAY_MS);
  });

  it("leaves a key whose owner is minting (holds the per-user lock) for the next run", async () => {
    await drain();
    const key = await attributionKeyUsed(100);
    const client = await env.own.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query(`SELECT pg_advisory_xact_lock($1::int4, hashtext($2))`, [LOCK_NAMESPACE.attributionKey, key.userId]);
      expect(await purgeExpiredAttributionKeys(env.pool, daysAgo(30), 100)).toEqual([]);
      expect(await keyExists(key.keyId)).toBe(true);
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
    expect(await purgeExpiredAttributionKeys(env.pool, daysAgo(30), 100)).toEqual([key.keyId]);
  });

  it("deletes at most one batch per call", async () => {
    await drain();
    const keys = await Promise.all([100, 101, 102].map((d) => attributionKeyUsed(d)));
    const first = await purgeExpiredAttributionKeys(env.pool, daysAgo(30), 2);
    expect(first).toHaveLength(2);
    expect(await purgeExpiredAttributionKeys(env.pool, daysAgo(30), 2)).toHaveLength(1);
    for (const k of keys) expect(await keyExists(k.keyId)).toBe(false);
  });
});

describe("purge of archived chats", () => {
  it("deletes families archived longer than the retention, with their rows and files, and nothing else", async () => {
    await drain();
    const old = await archivedFamily(RETENTION_DAYS + 5);
    const recent = await archivedFamily(RETENTION_DAYS - 5);
    const unarchived = await makeChat(env, "W");
    await env.pool.query(`UPDATE chats SET created_at = now() - interval '400 days' WHERE id = $1`, [unarchived.chatId]);
    // A child archived on its own long ago, its root still active: the family stays.
    const activeRoot = await makeChat(env, "W");
    const lonelyChild = await env.store.create({
      organizationId: env.owner.organizationId,
      ownerId: env.owner.userId,
      parentChatId: activeRoot.chatId,
      content: text("sub"),
    });
    await apply(env.store, finishError, lonelyChild.chat.id, { error: "failed" });
    await env.store.setArchived(lonelyChild.chat.id, true);
    await env.pool.query(`UPDATE chats SET archived_at = now() - interval '400 days' WHERE id = $1`, [lonelyChild.chat.id]);

    expect((await rowsOf([old.root, old.child])).queued).toBeGreaterThan(0);
    const deleted: string[] = [];
    const result = await purgeTick(env.store, {
      retentionDays: RETENTION_DAYS,
      now: new Date(),
      deleteFiles: async (keys) => {
        deleted.push(...keys);
      },
    });
    expect(result).toMatchObject({ families: 1, chats: 2, files: 2, skipped: 0, failed: 0 });
    expect(await rowsOf([old.root, old.child])).toEqual({ chats: 0, messages: 0, queued: 0, files: 0 });
    expect(deleted.sort()).toEqual([...old.storageKeys].sort());

    expect((await rowsOf([recent.root, recent.child])).chats).toBe(2);
    expect((await rowsOf([recent.root, recent.child])).files).toBe(2);
    expect(await stateOf(env.pool, unarchived.chatId)).toBe("W");
    expect(await stateOf(env.pool, activeRoot.chatId)).toBe("W");
    expect(await stateOf(env.pool, lonelyChild.chat.id)).toBe("XE0");
  });

  it("purges no chat when the retention is 0", async () => {
    await drain();
    const old = await archivedFamily(4000);
    const result = await purgeTick(env.store, { retentionDays: 0, now: new Date(), deleteFiles: async () => {} });
    expect(result).toMatchObject({ families: 0, chats: 0 });
    expect((await rowsOf([old.root, old.child])).chats).toBe(2);
    // Clean up for the tests below, which count.
    await env.pool.query(`DELETE FROM chat_queued_messages WHERE chat_id = ANY($1::uuid[])`, [[old.root, old.child]]);
    await env.pool.query(`DELETE FROM chats WHERE id = $1`, [old.root]);
  });

  it("keeps a family unarchived after the read (the recheck under the root lock)", async () => {
    await drain();
    const old = await archivedFamily(RETENTION_DAYS + 5);
    const cutoff = dayCutoff(new Date(), RETENTION_DAYS);
    expect(await findPurgeableChats(env.pool, cutoff, 100)).toEqual([old.root]);
    await env.store.setArchived(old.root, false);
    expect(await purgeArchivedFamily(env.store, old.root, cutoff)).toEqual({ chatIds: [], storageKeys: [] });
    expect((await rowsOf([old.root, old.child])).chats).toBe(2);
  });

  it("deletes at most one batch of families per tick, oldest archive first", async () => {
    await drain();
    const families = [];
    for (const days of [50, 49, 48]) families.push(await archivedFamily(days));
    const tick = () => purgeTick(env.store, { retentionDays: RETENTION_DAYS, now: new Date(), limit: 2, deleteFiles: async () => {} });
    expect((await tick()).families).toBe(2);
    expect((await rowsOf([families[0]!.root, families[1]!.root])).chats).toBe(0);
    expect((await rowsOf([families[2]!.root])).chats).toBe(1);
    expect((await tick()).families).toBe(1);
    expect((await tick()).families).toBe(0);
  });

  it("stamps archived_at when a chat is archived and clears it on unarchive", async () => {
    const chat = await makeChat(env, "W");
    const before = await env.pool.query<{ archived_at: Date | null }>(`SELECT archived_at FROM chats WHERE id = $1`, [chat.chatId]);
    expect(before.rows[0]?.archived_at).toBeNull();
    await env.store.setArchived(chat.chatId, true);
    const archived = await env.pool.query<{ archived_at: Date | null }>(`SELECT archived_at FROM chats WHERE id = $1`, [chat.chatId]);
    expect(archived.rows[0]?.archived_at).toBeInstanceOf(Date);
    await env.store.setArchived(chat.chatId, false);
    const cleared = await env.pool.query<{ archived_at: Date | null }>(`SELECT archived_at FROM chats WHERE id = $1`, [chat.chatId]);
    expect(cleared.rows[0]?.archived_at).toBeNull();
  });
});
