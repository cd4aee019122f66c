/**
 * The Worker's route handles over Hyperdrive (docs/deploy.md "Hyperdrive"). Hyperdrive speaks
 * the Postgres wire protocol over TCP, which the Neon serverless driver does not (it tunnels
 * through Neon's WebSocket proxy), so these use node-postgres: in workerd it opens its sockets
 * with `cloudflare:sockets` (nodejs_compat). In production the connection ends at Hyperdrive's
 * nearby edge, which keeps warm connections to the database and, for a config with caching on,
 * answers repeated reads itself; under `wrangler dev` the binding's connection string points
 * straight at the local database (CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_<BINDING>).
 *
 * Like the Neon pools of src/http/request-db.ts, a pool lives for one request: workerd does not
 * let one request's socket serve the next.
 */
import { drizzle } from "drizzle-orm/node-postgres";
import { Pool } from "pg";
import { logger } from "../log/log";
import type { Database } from "./database";
import type { Queryable } from "./rows";
import * as schema from "./schema/index";

/** What the code needs of a Hyperdrive binding (workers-types' `Hyperdrive`). */
export interface HyperdriveBinding {
  readonly connectionString: string;
}

/** A drizzle handle any route query takes, with its driver's pool for raw statements. */
export type RouteDb = Database & { $client: Queryable };

/** How long opening a connection may take (as the Neon pools: a connect that never settles would hang the request). */
const CONNECT_TIMEOUT_MS = 5_000;

export interface HyperdrivePool {
  db: RouteDb;
  end(): Promise<void>;
}

/** A pool of at most `max` connections on the binding; it connects at its first query. */
export function hyperdrivePool(binding: HyperdriveBinding, max: number): HyperdrivePool {
  const pool = new Pool({ connectionString: binding.connectionString, max, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // An idle connection that drops is an 'error' event on the pool; unheard, it would throw in the isolate.
  pool.on("error", (err: Error) => logger.warn("db_idle_connection_error", { driver: "hyperdrive", error: err.message }));
  // A checked-out connection cut between two statements would emit an 'error' nobody hears; its
  // holder learns of it from its next statement, and the pool discards it on release.
  pool.on("connect", (client) => client.on("error", ignoreHeldConnectionError));
  const db = drizzle({ client: pool, schema, casing: "snake_case" }) as unknown as RouteDb;
  return { db, end: () => pool.end() };
}

function ignoreHeldConnectionError(): void {}
