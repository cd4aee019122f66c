/**
 * `npm run db:bootstrap -- --email EMAIL --username NAME [--password PASSWORD]`: creates the first
 * user (the site owner), the default organization and a session token in DATABASE_URL (the
 * embedded local Postgres when unset), and prints the token, once. This is how an operator claims
 * a fresh deployment when POST /users/first is off (CHAT_BOOTSTRAP_SECRET empty, the default):
 * it needs the database's credentials, which no stranger has (docs/accounts.md).
 */
import { parseArgs } from "node:util";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { FirstUserExistsError } from "../src/accounts/errors";
import { createFirstUser } from "../src/accounts/users";
import * as schema from "../src/db/schema/index";
import { FirstUserBody } from "../src/routes/user-schemas";
import { log } from "./lib/log";
import { DEV_DATA_DIR, DEV_DATABASE } from "./lib/paths";
import { startLocalPostgres } from "./lib/postgres";

const USAGE = "usage: npm run db:bootstrap -- --email EMAIL --username NAME [--password PASSWORD]";

function fail(event: string, error: string, code: number): never {
  log("error", event, { error });
  process.exit(code);
}

let args: { email?: string | undefined; username?: string | undefined; password?: string | undefined };
try {
  args = parseArgs({ options: { email: { type: "string" }, username: { type: "string" }, password: { type: "string" } } }).values;
} catch (err) {
  fail("bootstrap_usage", `${err instanceof Error ? err.message : String(err)}\n${USAGE}`, 2);
}
const parsed = FirstUserBody.safeParse({ email: args.email?.toLowerCase(), username: args.username, password: args.password });
if (!parsed.success) {
  fail("bootstrap_usage", `${parsed.error.issues.map((i) => `--${i.path.join(".")}: ${i.message}`).join("; ")}\n${USAGE}`, 2);
}

const db = await startLocalPostgres({ dataDir: DEV_DATA_DIR, database: DEV_DATABASE, databaseUrl: process.env.DATABASE_URL });
const pool = new pg.Pool({ connectionString: db.url, max: 1 });
try {
  const first = await createFirstUser(drizzle({ client: pool, schema, casing: "snake_case" }), parsed.data, new Date());
  log("info", "bootstrap_done", { user_id: first.user.id, organization_id: first.organization.id });
  process.stdout.write(
    `${JSON.stringify({ user_id: first.user.id, organization_id: first.organization.id, session_token: first.sessionToken }, null, 2)}\n`,
  );
} catch (err) {
  const message = err instanceof FirstUserExistsError ? "this database already has users: the first owner exists" : String(err);
  log("error", "bootstrap_failed", { error: message });
  process.exitCode = 1;
} finally {
  await pool.end();
  await db.stop();
}
