/**
 * Which of migrations/ a database has applied, read without writing anything: drizzle's journal
 * table (`drizzle.__drizzle_migrations`) against meta/_journal.json, decided as drizzle's migrator
 * decides (scripts/lib/migrate.ts): a migration is pending when it is newer than the newest one
 * the database recorded.
 */
import { readFileSync } from "node:fs";
import pg from "pg";
import { MIGRATIONS_DIR } from "./migrate";

export interface MigrationStatus {
  /** Migrations this checkout has. */
  known: number;
  /** Tags of the ones the database has not applied, oldest first. */
  pending: string[];
  /**
   * The database recorded a migration newer than any this checkout has: it runs a newer schema
   * than this code was written for (a rollback of the code).
   */
  ahead: boolean;
}

interface JournalEntry {
  tag: string;
  when: number;
}

export function journal(migrationsDir = MIGRATIONS_DIR): JournalEntry[] {
  const parsed = JSON.parse(readFileSync(`${migrationsDir}/meta/_journal.json`, "utf8")) as { entries: JournalEntry[] };
  return parsed.entries.map(({ tag, when }) => ({ tag, when }));
}

export async function migrationStatus(databaseUrl: string, migrationsDir = MIGRATIONS_DIR): Promise<MigrationStatus> {
  const entries = journal(migrationsDir);
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 15_000 });
  await client.connect();
  try {
    // Two statements: one naming a table that does not exist fails when it is parsed, whatever CASE says.
    const table = await client.query<{ present: boolean }>("SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS present");
    let last: number | null = null;
    if (table.rows[0]?.present) {
      const { rows } = await client.query<{ last: string | null }>(
        "SELECT max(created_at)::text AS last FROM drizzle.__drizzle_migrations",
      );
      last = rows[0]?.last == null ? null : Number(rows[0].last);
    }
    const newest = Math.max(0, ...entries.map((e) => e.when));
    return {
      known: entries.length,
      pending: entries.filter((e) => last === null || e.when > last).map((e) => e.tag),
      ahead: last !== null && last > newest,
    };
  } finally {
    await client.end();
  }
}
