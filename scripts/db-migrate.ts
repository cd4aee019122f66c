/**
 * `npm run db:migrate`: applies migrations to DATABASE_URL (production: the Neon connection
 * string), or to the embedded local Postgres when DATABASE_URL is unset.
 */
import { startLocalPostgres } from "./lib/postgres";
import { runMigrations } from "./lib/migrate";
import { DEV_DATA_DIR, DEV_DATABASE } from "./lib/paths";
import { log } from "./lib/log";

const db = await startLocalPostgres({ dataDir: DEV_DATA_DIR, database: DEV_DATABASE, databaseUrl: process.env.DATABASE_URL });
try {
  await runMigrations(db.url);
} catch (err) {
  log("error", "migrations_failed", { error: err instanceof Error ? err.message : String(err) });
  process.exitCode = 1;
} finally {
  await db.stop();
}
