/**
 * `npm run db:check` (and `npm run lint`): fails when `drizzle-kit generate` would write a migration,
 * naming what it would change (scripts/lib/migration-check.ts). Never writes into migrations/.
 */
import { checkMigrations, describeMigrationCheck } from "./lib/migration-check";
import { log } from "./lib/log";

const started = Date.now();
log("info", "migrations_check_started");
const check = await checkMigrations();
if (check.ok) {
  log("info", "migrations_up_to_date", { migrations: check.migrations, ms: Date.now() - started });
} else {
  log("error", "migrations_out_of_date", { problem: check.problem, ms: Date.now() - started });
  for (const line of describeMigrationCheck(check)) console.error(line);
  console.error("Fix: change src/db/schema/ and run `npm run db:generate` (review the SQL), or add what the SQL created to the schema.");
  process.exitCode = 1;
}
