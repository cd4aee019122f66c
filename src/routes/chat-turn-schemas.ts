/** The wire shapes of GET /chats/{chat}/turns (src/observability/turn-tracing.ts TurnSummary). */
import { z } from "@hono/zod-openapi";
import { KEEP_TURNS } from "../observability/turn-log-size";

const TurnStage = z.object({
  name: z.string(),
  span_id: z.string(),
  parent_span_id: z.string().nullable(),
  offset_ms: z.number().openapi({ description: "Start, relative to the turn's start" }),
  duration_ms: z.number(),
  error: z.string().nullable(),
  attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
});

export const ChatTurnSchema = z
  .object({
    trace_id: z.string(),
    started_at: z.string(),
    ended_at: z.string(),
    duration_ms: z.number(),
    outcome: z.enum(["completed", "error", "interrupted", "abandoned"]),
    error: z.string().nullable(),
    stages: z.array(TurnStage),
  })
  .openapi("ChatTurn");

export const ChatTurnsQuery = z.object({ limit: z.coerce.number().int().min(1).max(KEEP_TURNS).default(20) });
