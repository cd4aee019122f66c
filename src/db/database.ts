/**
 * The drizzle handle the account and model-config code takes: any Postgres driver over our
 * schema. The Worker passes its Neon `Db`; the Node dev seed and the db tests pass a
 * node-postgres one, so both run the same queries and the same locked write paths.
 */
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as schema from "./schema/index";

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

/** READ COMMITTED, as the spec asks of locked writes: reads after the lock see the previous holder's commit. */
export const READ_COMMITTED = { isolationLevel: "read committed" } as const;
