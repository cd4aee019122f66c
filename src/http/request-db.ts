/**
 * A database handle per request. A Pool held at module level in a stateless Worker hangs on the
 * second request, so each request gets its own and ends it after the response (waitUntil).
 * Long-lived holders (the ChatObject) keep theirs warm instead. A Pool opens no connection
 * until its first query, so routes that never query pay nothing.
 */
import { createMiddleware } from "hono/factory";
import { configFromEnv } from "../config/env";
import { connectionOf, createDb, createPool } from "../db/client";
import type { AppEnv } from "./app-env";

/** A request runs its queries one after another; two connections cover a transaction plus one read. */
const REQUEST_POOL_SIZE = 2;

/**
 * Routers mounted on one prefix share their `use` middleware (Hono mounts it as `prefix/*`), so a
 * request can pass here more than once: it keeps the pool it got first (one connection, not two).
 */
export const requestDb = createMiddleware<AppEnv>(async (c, next) => {
  if (c.var.db) return next();
  const config = configFromEnv(c.env);
  const pool = createPool({ ...connectionOf(config), max: REQUEST_POOL_SIZE });
  c.set("db", createDb(pool));
  try {
    await next();
  } finally {
    c.executionCtx.waitUntil(pool.end());
  }
});
