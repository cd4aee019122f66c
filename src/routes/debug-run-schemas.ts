/** The wire shapes of the experimental debug run routes (src/routes/debug-runs.ts, docs/debug-runs.md). */
import { z } from "@hono/zod-openapi";

export const DEBUG_RUNS_LIST_MAX = 100;

export const DebugSettingsSchema = z
  .object({
    enabled: z.boolean().openapi({ description: "The owner's flag on this chat" }),
    recording: z
      .boolean()
      .openapi({ description: "Whether the chat's model calls are recorded now: the flag under the deployment's mode" }),
    mode: z.enum(["off", "opt_in", "all"]).openapi({ description: "CHAT_DEBUG_RUNS" }),
    retention_hours: z.number().int(),
    max_bytes: z.number().int().openapi({ description: "A run's stored request and response are cut past this size" }),
    runs_per_chat: z.number().int(),
  })
  .openapi("ChatDebugSettings");

export const UpdateDebugSettingsBody = z
  .object({ enabled: z.boolean().openapi({ description: "Record this chat's model calls; false also deletes its runs" }) })
  .strict()
  .openapi("UpdateChatDebugSettingsRequest");

const Usage = z.record(z.string(), z.number().nullable());

export const DebugRunSummarySchema = z
  .object({
    id: z.uuid(),
    chat_id: z.uuid(),
    kind: z.enum(["step", "compaction", "title"]),
    trace_id: z.string().nullable().openapi({ description: "The turn's trace (GET /api/v2/chats/{chat}/turns)" }),
    provider: z.string(),
    model: z.string(),
    model_config_id: z.uuid().nullable(),
    transport: z.string(),
    started_at: z.string(),
    duration_ms: z.number().int(),
    status: z.number().int().nullable().openapi({ description: "The HTTP status; null when no response came" }),
    error: z.string().nullable(),
    finish_reason: z.string().nullable(),
    bytes: z.number().int(),
    created_at: z.string(),
  })
  .openapi("ChatDebugRunSummary");

const HttpRequest = z.object({
  method: z.string(),
  url: z.string(),
  headers: z.record(z.string(), z.string()),
  body: z.unknown().openapi({ description: "The JSON body as sent (redacted), or its first bytes as text when cut" }),
  body_truncated: z.boolean(),
  body_bytes: z.number().int(),
});

const HttpResponse = z.object({
  status: z.number().int(),
  headers: z.record(z.string(), z.string()),
  body: z.string().openapi({ description: "The body as received (SSE or JSON text), redacted, cut past its share" }),
  body_truncated: z.boolean(),
  body_bytes: z.number().int(),
});

const Outcome = z.object({
  finish_reason: z.string().nullable(),
  usage: Usage.nullable(),
  parts: z.unknown(),
  parts_truncated: z.boolean(),
});

export const DebugRunSchema = DebugRunSummarySchema.extend({
  request: HttpRequest,
  response: HttpResponse.nullable(),
  outcome: Outcome.nullable(),
}).openapi("ChatDebugRun");

export const DebugRunsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(DEBUG_RUNS_LIST_MAX).default(50),
  trace_id: z.string().min(1).max(64).optional().openapi({ description: "Only the runs of this turn" }),
});

export const DebugRunParams = z.object({ chat: z.uuid(), debugRun: z.uuid() });
