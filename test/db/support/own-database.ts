/**
 * A database of the test's own on the shared test server, migrated, for tests that need an empty
 * deployment (the first user can be created once per database). Dropped by `drop()`.
 */
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { inject } from "vitest";
import { runMigrations } from "../../../scripts/lib/migrate";
import type { Database } from "../../../src/db/database";
import * as schema from "../../../src/db/schema/index";

export interface OwnDatabase {
  url: string;
  db: Database;
  pool: pg.Pool;
  drop(): Promise<void>;
}

/**
 * On the shared test server, or on the server `serverUrl` names (R6's restart has one of its own).
 * `migrated: false` leaves it empty, as a fresh deployment's database is (the deploy check's tests).
 */
export async function createOwnDatabase(
  prefix: string,
  serverUrl: string = inject("databaseUrl"),
  { migrated = true }: { migrated?: boolean } = {},
): Promise<OwnDatabase> {
  const shared = new URL(serverUrl);
  const name = `${prefix}_${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: shared.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  const own = new URL(shared);
  own.pathname = `/${name}`;
  const url = own.toString();
  if (migrated) await runMigrations(url);
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  // An idle client's error (the server ending it, as DROP ... WITH (FORCE) does to a client still
  // closing) is emitted on the pool; unheard, it is an uncaught exception that fails the run.
  pool.on("error", () => {});
  const db: Database = drizzle({ client: pool, schema, casing: "snake_case" });
  return {
    url,
    db,
    pool,
    drop: async () => {
      await pool.end();
      const client = new pg.Client({ connectionString: shared.toString() });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
