/**
 * `GET /api/v2/health`: answers only after a round trip Worker → ChatObject → Postgres, so a
 * green health check proves every layer.
 */
import { logger } from "../log/log";
import { createRoute } from "@hono/zod-openapi";
import { configFromEnv } from "../config/env";
import { createRouter } from "../http/router";
import { HealthSchema } from "./health-schemas";
import { chatObjectStub } from "../placement/chat-object-stub";

/** The object that answers health checks; any name works, one keeps it warm. */
const HEALTH_OBJECT_NAME = "health";

const route = createRoute({
  method: "get",
  path: "/",
  summary: "Liveness through every layer (Worker, ChatObject, Postgres)",
  security: [],
  responses: {
    200: { description: "Healthy", content: { "application/json": { schema: HealthSchema } } },
    503: { description: "Postgres unreachable", content: { "application/json": { schema: HealthSchema } } },
  },
});

export const health = createRouter().openapi(route, async (c) => {
  configFromEnv(c.env); // a misconfigured deployment is not healthy: the error says why
  const stub = chatObjectStub(c.env, HEALTH_OBJECT_NAME);
  const db = await stub.checkDatabase();
  if (db.ok) return c.json({ ok: true, db: "ok" as const }, 200);
  // The driver's words (addresses, roles) stay in the log: this route answers anyone.
  logger.warn("health_database_unavailable", { error: db.error });
  return c.json({ ok: false, db: "unavailable" as const }, 503);
});
