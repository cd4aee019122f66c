/**
 * Migration 0021 upgrades a deployment in place: a database at 0020 holding messages and queue
 * rows with uuid ids (written the old way, in raw SQL: the schema in src/ is the new one) gets
 * integer ids, keeps its order, its revisions and its chats' versions, and goes on working.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMigrationsUpTo } from "../../scripts/lib/migrate";
import { createOwnDatabase, type OwnDatabase } from "./support/own-database";

const text = (t: string) => JSON.stringify([{ type: "text", text: t }]);

describe("migration 0021: integer message and queued-message ids", () => {
  let own: OwnDatabase;
  const chatA = randomUUID();
  const chatB = randomUUID();
  const userId = randomUUID();
  /** uuid ids of the old rows, by name. */
  const old: Record<string, string> = {};
  let chatsBefore: Record<string, unknown>[] = [];
  let revisionsBefore: Record<string, unknown>[] = [];

  beforeAll(async () => {
    own = await createOwnDatabase("mig0021", undefined, { migrated: false });
    await runMigrationsUpTo(own.url, 20);
    const q = (sql: string, values: unknown[] = []) => own.pool.query(sql, values);
    const orgId = randomUUID();
    await q(`INSERT INTO organizations (id, name) VALUES ($1, $2)`, [orgId, `org-${orgId}`]);
    await q(`INSERT INTO users (id, email, username) VALUES ($1, $2, $3)`, [userId, `${userId}@example.com`, `u${userId.slice(0, 8)}`]);
    for (const chat of [chatA, chatB]) {
      await q(
        `INSERT INTO chats (id, organization_id, owner_id, status, title, title_source) VALUES ($1, $2, $3, 'running', 't', 'fallback')`,
        [chat, orgId, userId],
      );
    }
    // Interleaved across two chats, as the global seq sequence numbers them; one row soft-deleted.
    const insertMessage = async (name: string, chat: string, role: string, extra: { queued?: string; deleted?: boolean } = {}) => {
      const { rows } = await q(
        `INSERT INTO chat_messages (chat_id, role, content, queued_message_id, deleted) VALUES ($1, $2, $3::jsonb, $4, $5) RETURNING id`,
        [chat, role, text(name), extra.queued ?? null, extra.deleted ?? false],
      );
      old[name] = rows[0].id;
    };
    const insertQueued = async (name: string, chat: string, position: number, createdAt: string) => {
      const { rows } = await q(
        `INSERT INTO chat_queued_messages (chat_id, position, content, created_by, created_at) VALUES ($1, $2, $3::jsonb, $4, $5) RETURNING id`,
        [chat, position, text(name), userId, createdAt],
      );
      old[name] = rows[0].id;
    };
    await insertMessage("a1", chatA, "user");
    await insertMessage("b1", chatB, "user");
    await insertMessage("a2", chatA, "assistant");
    await insertMessage("a3", chatA, "user", { deleted: true });
    // Queue rows: chat B's was queued first; chat A holds two, the head older than the tail.
    await insertQueued("qB", chatB, 0, "2026-01-01T00:00:00Z");
    await insertQueued("qA0", chatA, 0, "2026-01-01T00:00:01Z");
    await insertQueued("qA1", chatA, 1, "2026-01-01T00:00:02Z");
    // A promoted message whose queue row was deleted in the same transaction (the normal case) ...
    await insertMessage("a4", chatA, "user", { queued: randomUUID() });
    // ... and one whose queue row still exists (no transition leaves that, but the mapping must hold).
    await insertMessage("b2", chatB, "user", { queued: old.qB });
    // Later transitions moved the chats on (a new snapshot, a second generation attempt): a message
    // revision trigger firing during the upgrade would show, pulling history_version up to the
    // snapshot, zeroing the attempt and rewriting the revision of the row it touched.
    await q(`UPDATE chats SET snapshot_version = snapshot_version + 5, generation_attempt = 2 WHERE id = ANY($1::uuid[])`, [
      [chatA, chatB],
    ]);
    chatsBefore = (await q(`SELECT * FROM chats WHERE id = ANY($1::uuid[]) ORDER BY id`, [[chatA, chatB]])).rows;
    revisionsBefore = (await q(`SELECT content->0->>'text' AS name, revision::text AS revision FROM chat_messages ORDER BY seq`)).rows;
    // 0021 alone: later migrations add columns of their own, which would read as changes here.
    await runMigrationsUpTo(own.url, 21);
  }, 120_000);

  afterAll(async () => {
    await own?.drop();
  });

  const messages = async () =>
    (
      await own.pool.query(
        `SELECT id::text AS id, chat_id, content->0->>'text' AS name, queued_message_id::text AS queued, revision::text AS revision, deleted
         FROM chat_messages ORDER BY id`,
      )
    ).rows as { id: string; chat_id: string; name: string; queued: string | null; revision: string; deleted: boolean }[];
  const queue = async () =>
    (await own.pool.query(`SELECT id::text AS id, chat_id, position, content->0->>'text' AS name FROM chat_queued_messages ORDER BY id`))
      .rows as { id: string; chat_id: string; position: number; name: string }[];

  it("gives messages their old seq as integer id, so insertion order is id order", async () => {
    const rows = await messages();
    expect(rows.map((r) => r.name)).toEqual(["a1", "b1", "a2", "a3", "a4", "b2"]);
    const ids = rows.map((r) => BigInt(r.id));
    expect([...ids].sort((x, y) => (x < y ? -1 : 1))).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(rows.find((r) => r.name === "a3")!.deleted).toBe(true);
  });

  it("numbers queue rows in the order they were queued, positions kept", async () => {
    const rows = await queue();
    expect(rows.map((r) => [r.id, r.name, r.position])).toEqual([
      ["1", "qB", 0],
      ["2", "qA0", 0],
      ["3", "qA1", 1],
    ]);
  });

  it("maps queued_message_id to the queue row's new id, or to NULL when the row is gone", async () => {
    const rows = await messages();
    expect(rows.find((r) => r.name === "b2")!.queued).toBe("1");
    expect(rows.find((r) => r.name === "a4")!.queued).toBeNull();
    expect(rows.filter((r) => !["a4", "b2"].includes(r.name)).every((r) => r.queued === null)).toBe(true);
  });

  it("leaves the chats' versions and the messages' revisions as they were (no trigger fired)", async () => {
    const after = (await own.pool.query(`SELECT * FROM chats WHERE id = ANY($1::uuid[]) ORDER BY id`, [[chatA, chatB]])).rows;
    expect(after).toEqual(chatsBefore);
    expect(after.map((c) => Number(c.generation_attempt))).toEqual([2, 2]);
    expect((await messages()).map((m) => ({ name: m.name, revision: m.revision }))).toEqual(revisionsBefore);
  });

  it("keeps working: new rows take ids after the old ones, from their sequences", async () => {
    const before = await messages();
    const lastMessage = BigInt(before[before.length - 1]!.id);
    const { rows } = await own.pool.query(
      `INSERT INTO chat_messages (chat_id, role, content) VALUES ($1, 'assistant', $2::jsonb) RETURNING id::text AS id`,
      [chatA, text("a5")],
    );
    expect(BigInt(rows[0].id)).toBe(lastMessage + 1n);
    const queued = await own.pool.query(
      `INSERT INTO chat_queued_messages (chat_id, position, content, created_by) VALUES ($1, 2, $2::jsonb, $3) RETURNING id::text AS id`,
      [chatA, text("qA2"), userId],
    );
    expect(queued.rows[0].id).toBe("4");
    const columns = await own.pool.query(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
       WHERE table_name IN ('chat_messages', 'chat_queued_messages') AND column_name IN ('id', 'seq', 'queued_message_id')
       ORDER BY table_name, column_name`,
    );
    expect(columns.rows).toEqual([
      { table_name: "chat_messages", column_name: "id", data_type: "bigint" },
      { table_name: "chat_messages", column_name: "queued_message_id", data_type: "bigint" },
      { table_name: "chat_queued_messages", column_name: "id", data_type: "bigint" },
    ]);
    // The per-chat ordered index survived the rename, and nothing named after seq is left.
    const indexes = await own.pool.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'chat_messages' AND indexname LIKE 'chat_messages_chat_id_%id_idx'`,
    );
    expect(indexes.rows.map((r) => r.indexname)).toEqual(["chat_messages_chat_id_id_idx"]);
    const leftovers = await own.pool.query(
      `SELECT relname FROM pg_class WHERE relname LIKE 'chat_messages%seq%' AND relname <> 'chat_messages_id_seq'`,
    );
    expect(leftovers.rows).toEqual([]);
    expect(old.a1).toMatch(/^[0-9a-f-]{36}$/);
  });
});
