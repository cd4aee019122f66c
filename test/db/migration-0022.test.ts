/**
 * Migration 0022 upgrades a deployment in place: chats that existed before it are `api` chats and
 * start read (their marker is their newest message), so an upgrade marks nothing unread, while a
 * reply after it does. Run on a database of its own, migrated to just before 0022 first.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS_DIR } from "../../scripts/lib/migrate";
import { readChatView } from "../../src/chats/chat-views";
import { createOwnDatabase, type OwnDatabase } from "./support/own-database";

const MIGRATION = "0022_chat_read_marker";

let own: OwnDatabase;
let before: string;

/** migrations/ without 0022 and what follows it. */
function foldersBefore(tag: string): string {
  const dir = mkdtempSync(join(tmpdir(), "migrations-"));
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  const journalPath = join(dir, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  expect(at).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

async function migrateWith(url: string, folder: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await migrate(drizzle({ client }), { migrationsFolder: folder });
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  own = await createOwnDatabase("mig0022", undefined, { migrated: false });
  before = foldersBefore(MIGRATION);
  await migrateWith(own.url, before);
});
afterAll(async () => {
  rmSync(before, { recursive: true, force: true });
  await own?.drop();
});

describe(`migration ${MIGRATION}`, () => {
  it("keeps existing chats working: api, read up to their newest message, unread after a new reply", async () => {
    const q = (text: string, values: unknown[] = []) => own.pool.query(text, values);
    const org = (await q("INSERT INTO organizations (name) VALUES ('old') RETURNING id")).rows[0].id as string;
    const user = (await q("INSERT INTO users (email, username) VALUES ('old@example.com', 'old') RETURNING id")).rows[0].id as string;
    const chat = async (title: string) =>
      (
        await q(
          "INSERT INTO chats (organization_id, owner_id, status, title, title_source) VALUES ($1, $2, 'waiting', $3, 'user') RETURNING id",
          [org, user, title],
        )
      ).rows[0].id as string;
    const say = (chatId: string, role: string, text: string) =>
      q("INSERT INTO chat_messages (chat_id, role, content) VALUES ($1, $2, $3::jsonb)", [
        chatId,
        role,
        JSON.stringify([{ type: "text", text }]),
      ]);
    const talked = await chat("talked");
    await say(talked, "user", "hi");
    await say(talked, "assistant", "hello");
    const silent = await chat("silent");

    await migrateWith(own.url, MIGRATIONS_DIR);

    const rows = await q("SELECT id, client_type, last_read_message_id::int AS marker FROM chats ORDER BY title");
    const newest = (await q("SELECT max(id)::int AS id FROM chat_messages WHERE chat_id = $1", [talked])).rows[0].id as number;
    expect(rows.rows).toEqual([
      { id: silent, client_type: "api", marker: 0 },
      { id: talked, client_type: "api", marker: newest },
    ]);
    expect((await readChatView(own.pool, talked))!.hasUnread).toBe(false);
    await say(talked, "assistant", "a reply after the upgrade");
    expect((await readChatView(own.pool, talked))!.hasUnread).toBe(true);
    await expect(q("UPDATE chats SET client_type = 'cli' WHERE id = $1", [silent])).rejects.toThrow(/chats_client_type_check/);
  });
});
