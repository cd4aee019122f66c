/**
 * The caller's chat preferences: `GET /users/me/chat-preferences`, `PUT /users/me/chat-preferences`.
 * The personal compaction threshold (percent of the chat model's window; null leaves it to the
 * model config; 100 disables the chat trigger), and MCP tool search (null: the organization's
 * setting; docs/mcp.md#tool-search).
 */
import { createRoute, type z } from "@hono/zod-openapi";
import { ChatPreferencesSchema, UpdateChatPreferencesBody } from "./chat-preferences-schemas";
import { type ChatPreferences, getChatPreferences, setChatPreferences } from "../chats/chat-preferences";
import { requireCaller } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";

const json = (prefs: ChatPreferences): z.infer<typeof ChatPreferencesSchema> => ({
  compaction_threshold_percent: prefs.compactionThresholdPercent,
  mcp_tool_search: prefs.mcpToolSearch,
});

const getRoute = createRoute({
  method: "get",
  path: "/me/chat-preferences",
  summary: "The caller's chat preferences",
  middleware: [requestDb, requireCaller],
  responses: { 200: jsonContent(ChatPreferencesSchema, "The preferences"), ...errorResponses(401) },
});

const putRoute = createRoute({
  method: "put",
  path: "/me/chat-preferences",
  summary: "Replace the caller's chat preferences",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { body: jsonBody(UpdateChatPreferencesBody) },
  responses: { 200: jsonContent(ChatPreferencesSchema, "The stored preferences"), ...errorResponses(400, 401, 413) },
});

export const chatPreferences = createRouter()
  .openapi(getRoute, async (c) => c.json(json(await getChatPreferences(c.var.db, c.var.caller.userId)), 200))
  .openapi(putRoute, async (c) => {
    const input = c.req.valid("json");
    const stored = await setChatPreferences(c.var.db, c.var.caller.userId, {
      compactionThresholdPercent: input.compaction_threshold_percent,
      ...(input.mcp_tool_search === undefined ? {} : { mcpToolSearch: input.mcp_tool_search }),
    });
    return c.json(json(stored), 200);
  });
