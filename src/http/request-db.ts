/**
 * A database handle per request. A Pool held at module level in a stateless Worker hangs on the
 * second request, so each request gets its own and ends it after the response (waitUntil).
 * Long-lived holders (the ChatObject) keep theirs warm instead. A Pool opens no connection
 * until its first query, so routes that never query pay nothing.
 *
 * Two handles (docs/deploy.md "Hyperdrive"): `db` for every write and every read whose freshness
 * matters (authentication, access checks, the chat list), and `cachedDb` for the few reads that
 * may lag by the cached Hyperdrive config's max-age (the provider and model config lists). With
 * WORKER_DB_DRIVER "neon" both are one Neon pool, as before; with "hyperdrive" they are
 * node-postgres pools on the HYPERDRIVE_UNCACHED and HYPERDRIVE_CACHED bindings.
 */
import { createMiddleware } from "hono/factory";
import { type Config, ConfigError, configFromEnv } from "../config/env";
import { connectionOf, createDb, createPool } from "../db/client";
import { type HyperdriveBinding, hyperdrivePool, type RouteDb } from "../db/hyperdrive";
import type { AppEnv } from "./app-env";

/** A request runs its queries one after another; two connections cover a transaction plus one read. */
const REQUEST_POOL_SIZE = 2;
/** The cached handle serves single reads, one at a time. */
const CACHED_POOL_SIZE = 1;

interface RequestDb {
  db: RouteDb;
  cachedDb: RouteDb;
  end(): Promise<void>;
}

type HyperdriveBindings = Partial<Record<"HYPERDRIVE_UNCACHED" | "HYPERDRIVE_CACHED", HyperdriveBinding>>;

function openRequestDb(config: Config, env: HyperdriveBindings): RequestDb {
  if (config.WORKER_DB_DRIVER === "neon") {
    const pool = createPool({ ...connectionOf(config), max: REQUEST_POOL_SIZE });
    const db = createDb(pool) as unknown as RouteDb;
    return { db, cachedDb: db, end: () => pool.end() };
  }
  const missing = (["HYPERDRIVE_UNCACHED", "HYPERDRIVE_CACHED"] as const).filter((name) => env[name]?.connectionString === undefined);
  if (missing.length > 0)
    throw new ConfigError(
      missing.map((name) => `WORKER_DB_DRIVER is "hyperdrive" but the ${name} binding is missing ([[hyperdrive]] in wrangler.toml)`),
    );
  const uncached = hyperdrivePool(env.HYPERDRIVE_UNCACHED as HyperdriveBinding, REQUEST_POOL_SIZE);
  const cached = hyperdrivePool(env.HYPERDRIVE_CACHED as HyperdriveBinding, CACHED_POOL_SIZE);
  return { db: uncached.db, cachedDb: cached.db, end: () => Promise.all([uncached.end(), cached.end()]).then(() => {}) };
}

/**
 * Routers mounted on one prefix share their `use` middleware (Hono mounts it as `prefix/*`), so a
 * request can pass here more than once: it keeps the pool it got first (one connection, not two).
 */
export const requestDb = createMiddleware<AppEnv>(async (c, next) => {
  if (c.var.db) return next();
  const opened = openRequestDb(configFromEnv(c.env), c.env as HyperdriveBindings);
  c.set("db", opened.db);
  c.set("cachedDb", opened.cachedDb);
  try {
    await next();
  } finally {
    c.executionCtx.waitUntil(opened.end());
  }
});
