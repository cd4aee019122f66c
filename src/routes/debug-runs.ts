/**
 * The experimental debug run routes (docs/debug-runs.md), mounted under /api/experimental only:
 * the chat's flag (`GET`/`PUT /chats/{chat}/debug`), its runs (`GET /chats/{chat}/debug/runs`) and
 * one run with what was sent and received (`GET /chats/{chat}/debug/runs/{debugRun}`). The chat's
 * owner only; the chat's object answers, as for every chat read.
 */
import { createRoute, type z } from "@hono/zod-openapi";
import type { DebugSettings } from "../chat-commands/debug-runs";
import { configFromEnv } from "../config/env";
import type { DebugRun, DebugRunSummary } from "../debug-runs/store";
import { requireCredentials } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { ApiError } from "../http/errors";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";
import { answered, chatObjectOf, senderOf } from "./chat-object-calls";
import { ChatParams } from "./chat-schemas";
import {
  DebugRunParams,
  DebugRunSchema,
  DebugRunSummarySchema,
  DebugRunsQuery,
  DebugSettingsSchema,
  UpdateDebugSettingsBody,
} from "./debug-run-schemas";

export const debugRuns = createRouter();
debugRuns.use(requireCredentials);

const getSettings = createRoute({
  method: "get",
  path: "/{chat}/debug",
  summary: "Whether the chat's model calls are recorded as debug runs",
  request: { params: ChatParams },
  responses: { 200: jsonContent(DebugSettingsSchema, "The chat's debug settings"), ...errorResponses(400, 401, 404) },
});

const putSettings = createRoute({
  method: "put",
  path: "/{chat}/debug",
  summary: "Turn the chat's debug runs on or off (off deletes its runs)",
  middleware: [jsonBodyLimit],
  request: { params: ChatParams, body: jsonBody(UpdateDebugSettingsBody) },
  responses: { 200: jsonContent(DebugSettingsSchema, "The chat's debug settings"), ...errorResponses(400, 401, 404, 409, 413) },
});

const list = createRoute({
  method: "get",
  path: "/{chat}/debug/runs",
  summary: "The chat's debug runs, newest first, without their bodies",
  request: { params: ChatParams, query: DebugRunsQuery },
  responses: { 200: jsonContent(DebugRunSummarySchema.array(), "The runs"), ...errorResponses(400, 401, 404) },
});

const read = createRoute({
  method: "get",
  path: "/{chat}/debug/runs/{debugRun}",
  summary: "One debug run: the request sent to the model and what came back, redacted",
  request: { params: DebugRunParams },
  responses: { 200: jsonContent(DebugRunSchema, "The run"), ...errorResponses(400, 401, 404) },
});

debugRuns.openapi(getSettings, async (c) => {
  const { chat: chatId } = c.req.valid("param");
  return c.json(settingsWire(await answered(c, chatObjectOf(c, chatId).debugSettings(senderOf(c), { chatId }))), 200);
});

debugRuns.openapi(putSettings, async (c) => {
  const { chat: chatId } = c.req.valid("param");
  const { enabled } = c.req.valid("json");
  if (enabled && configFromEnv(c.env).CHAT_DEBUG_RUNS === "off") {
    throw new ApiError(409, "debug_runs_disabled", "Debug runs are off for this deployment.", "CHAT_DEBUG_RUNS is off.");
  }
  return c.json(settingsWire(await answered(c, chatObjectOf(c, chatId).setDebugRuns(senderOf(c), { chatId, enabled }))), 200);
});

debugRuns.openapi(list, async (c) => {
  const { chat: chatId } = c.req.valid("param");
  const { limit, trace_id } = c.req.valid("query");
  const runs = await answered(c, chatObjectOf(c, chatId).debugRuns(senderOf(c), { chatId, limit, traceId: trace_id }));
  return c.json(runs.map(summaryWire), 200);
});

debugRuns.openapi(read, async (c) => {
  const { chat: chatId, debugRun: runId } = c.req.valid("param");
  const run = await answered(c, chatObjectOf(c, chatId).debugRun(senderOf(c), { chatId, runId }));
  return c.json(runWire(run), 200);
});

function settingsWire(s: DebugSettings): z.infer<typeof DebugSettingsSchema> {
  return {
    enabled: s.enabled,
    recording: s.recording,
    mode: s.mode,
    retention_hours: s.retentionHours,
    max_bytes: s.maxBytes,
    runs_per_chat: s.runsPerChat,
  };
}

function summaryWire(r: DebugRunSummary): z.infer<typeof DebugRunSummarySchema> {
  return {
    id: r.id,
    chat_id: r.chatId,
    kind: r.kind,
    trace_id: r.traceId,
    provider: r.provider,
    model: r.model,
    model_config_id: r.modelConfigId,
    transport: r.transport,
    started_at: new Date(r.startedAt).toISOString(),
    duration_ms: r.durationMs,
    status: r.status,
    error: r.error,
    finish_reason: r.finishReason,
    bytes: r.bytes,
    created_at: new Date(r.createdAt).toISOString(),
  };
}

function runWire(r: DebugRun): z.infer<typeof DebugRunSchema> {
  return { ...summaryWire(r), request: r.request, response: r.response, outcome: r.outcome };
}
