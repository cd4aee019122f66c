/** The health check's answer, shared by the route, the OpenAPI document and the client SDK. */
import { z } from "@hono/zod-openapi";

export const HealthSchema = z.object({ ok: z.boolean(), db: z.enum(["ok", "unavailable"]) }).openapi("Health");
