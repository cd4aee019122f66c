/**
 * Applies the SQL migrations in migrations/ idempotently (drizzle's journal table records what
 * ran). Used by the dev command, the test harness and production deploys alike. An advisory lock
 * keeps two runners (say, two test processes) from applying the same migration at once.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { log } from "./log";

export const MIGRATIONS_DIR = fileURLToPath(new URL("../../migrations", import.meta.url));
const MIGRATION_LOCK_KEY = 0x63686174; // "chat"

export async function runMigrations(databaseUrl: string, migrationsFolder: string = MIGRATIONS_DIR): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = Date.now();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    await migrate(drizzle({ client }), { migrationsFolder });
    log("info", "migrations_applied", { ms: Date.now() - started });
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => {});
    await client.end();
  }
}

/**
 * Applies the migrations up to and including number `last` (0021 is 21), as a deployment that
 * stopped there has them: the migration tests upgrade such a database with runMigrations. The
 * journal is cut in a temporary copy of the folder; drizzle applies only what its journal lists.
 */
export async function runMigrationsUpTo(databaseUrl: string, last: number): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), "migrations-"));
  try {
    cpSync(MIGRATIONS_DIR, folder, { recursive: true });
    const journalPath = join(folder, "meta", "_journal.json");
    const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { idx: number }[] };
    if (!journal.entries.some((e) => e.idx === last)) throw new Error(`no migration number ${last} in ${MIGRATIONS_DIR}`);
    journal.entries = journal.entries.filter((e) => e.idx <= last);
    writeFileSync(journalPath, JSON.stringify(journal));
    await runMigrations(databaseUrl, folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
