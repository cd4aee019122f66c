/**
 * The one place that decides how the Neon serverless driver reaches Postgres.
 *
 * Production: `DATABASE_URL` is a Neon connection string; the driver talks to Neon's own
 * WebSocket proxy with TLS, and nothing local runs. Local development and tests: the driver
 * talks plain WebSocket to scripts/lib/ws-proxy.ts, which pipes to the local Postgres.
 */
import { neonConfig, Pool, type PoolClient } from "@neondatabase/serverless";
import { drizzle, type NeonDatabase } from "drizzle-orm/neon-serverless";
import { logger } from "../log/log";
import * as schema from "./schema/index";

export interface DbConnectionOptions {
  databaseUrl: string;
  /** `host:port` of the local WebSocket proxy; empty or undefined in production. */
  wsProxy?: string | undefined;
  /**
   * With `wsProxy`: "password" sends the startup, the password and the first statement in one
   * round trip, as the driver does with Neon's own proxy. Only for a server that asks for a cleartext password (the
   * embedded Postgres of the local stack); any other answer would fail the connect. Default "off".
   */
  pipelineConnect?: "password" | "off" | undefined;
  /** A WebSocket constructor where the runtime has none (Node 20: the `ws` package). */
  webSocketConstructor?: unknown;
  /** Connections this pool may hold; a Durable Object needs only a few. */
  max?: number;
  /** How long an unused connection stays open (the driver's default: 10 s). */
  idleTimeoutMs?: number;
}

export type Db = NeonDatabase<typeof schema> & { $client: Pool };

/** The connection settings of a validated config (src/config/env.ts), for createPool. */
export function connectionOf(config: {
  DATABASE_URL: string;
  NEON_WS_PROXY: string;
  NEON_PIPELINE_CONNECT: "off" | "password";
}): Pick<DbConnectionOptions, "databaseUrl" | "wsProxy" | "pipelineConnect"> {
  return { databaseUrl: config.DATABASE_URL, wsProxy: config.NEON_WS_PROXY, pipelineConnect: config.NEON_PIPELINE_CONNECT };
}

function configureDriver(opts: DbConnectionOptions): void {
  if (opts.webSocketConstructor) neonConfig.webSocketConstructor = opts.webSocketConstructor as typeof WebSocket;
  const proxy = opts.wsProxy;
  if (proxy) {
    neonConfig.wsProxy = (host: string, port: number | string) => `${proxy}/v2?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineTLS = false;
    neonConfig.pipelineConnect = opts.pipelineConnect === "password" ? "password" : false;
  }
}

/**
 * How long opening a connection may take. The driver's default is to wait forever, and a connect
 * attempt caught by a database restart or killed backend was seen never to settle: the object's
 * heartbeat tick waiting on it never ended, so its alarm was never re-armed and the chat stalled.
 */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * A pool for a long-lived holder (a Durable Object, a Node process). A stateless Worker request
 * must create its own and end it with `waitUntil(pool.end())`: a module-level pool there hangs.
 */
export function createPool(opts: DbConnectionOptions): Pool {
  configureDriver(opts);
  const pool = new Pool({
    connectionString: opts.databaseUrl,
    max: opts.max ?? 5,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(opts.idleTimeoutMs === undefined ? {} : { idleTimeoutMillis: opts.idleTimeoutMs }),
  });
  // An idle connection that drops (server restart, proxy gone, isolate teardown) is an 'error'
  // event on the pool; unhandled it would crash the isolate. The next query reconnects. The pool's
  // own closing of a connection idle for idleTimeoutMillis comes here too (workerd reports the
  // socket's close as "Network connection lost"): that one is expected.
  pool.on("error", (err: Error, client: PoolClient) => {
    if (isClosing(client)) logger.debug("db_idle_connection_closed", { error: err.message });
    else logger.warn("db_idle_connection_error", { error: err.message });
  });
  // A checked-out connection has no such listener (the pool removes its own while a caller holds
  // it), so one cut between two statements of a transaction emitted an 'error' nobody heard: an
  // uncaught exception in the runtime. The caller learns of it anyway: its next statement fails
  // ("not queryable"), and the pool discards the connection on release.
  pool.on("connect", (client: PoolClient) => client.on("error", ignoreHeldConnectionError));
  return pool;
}

function ignoreHeldConnectionError(): void {}

/**
 * How long a connection released from now on stays open unused. The pool reads the option at each
 * release, so a holder can change it as its load changes (an idle chat object: object-cadence.ts).
 */
export function setIdleTimeout(pool: Pool, ms: number): void {
  pool.options.idleTimeoutMillis = ms;
}

/** The driver's client marks a connection it was told to end (pg's `Client#end`). */
function isClosing(client: PoolClient | undefined): boolean {
  return (client as { _ending?: boolean } | undefined)?._ending === true;
}

export function createDb(pool: Pool): Db {
  // The schema's keys are camelCase and its SQL names snake_case (drizzle.config.ts says the same).
  return drizzle({ client: pool, schema, casing: "snake_case" }) as Db;
}
