/**
 * Applies the SQL migrations in migrations/ idempotently (drizzle's journal table records what
 * ran). Used by the dev command, the test harness and production deploys alike. An advisory lock
 * keeps two runners (say, two test processes) from applying the same migration at once.
 */
import { fileURLToPath } from "node:url";
import pg from "pg";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { log } from "./log";

export const MIGRATIONS_DIR = fileURLToPath(new URL("../../migrations", import.meta.url));
const MIGRATION_LOCK_KEY = 0x63686174; // "chat"

export async function runMigrations(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = Date.now();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    await migrate(drizzle({ client }), { migrationsFolder: MIGRATIONS_DIR });
    log("info", "migrations_applied", { ms: Date.now() - started });
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => {});
    await client.end();
  }
}
