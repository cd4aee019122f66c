/**
 * `/chats`: create, list, read and update chats. Listing is authenticated here, on the request's
 * own pool; creating, and one chat's read and update, go to the chat's ChatObject with the
 * presented token (docs/hot-path.md), which authenticates it and applies the transitions.
 * Middleware is per route: a router-wide `use` would run for every `/chats/*` route of the
 * routers mounted after this one.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { readChatViews } from "../chats/chat-views";
import { listChats } from "../chats/queries";
import { ChatSearchError, parseChatSearch } from "../chats/chat-search";
import { chatToWire } from "../wire/chat-wire";
import { requireCaller, requireCredentials } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { answered, chatObjectOf, senderOf } from "./chat-object-calls";
import { ApiError } from "../http/errors";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";
import { ChatParams, ChatSchema, CreateChatBody, ListChatsQuery, planModeOf, UpdateChatBody } from "./chat-schemas";

export const chats = createRouter();

const create = createRoute({
  method: "post",
  path: "/",
  summary: "Create a chat (Create: N -> R0; empty content: N -> W)",
  // The new chat's object authenticates the caller and checks the organization (docs/hot-path.md).
  middleware: [requireCredentials, jsonBodyLimit],
  request: { body: jsonBody(CreateChatBody) },
  responses: { 201: jsonContent(ChatSchema, "The new chat"), ...errorResponses(400, 401, 403, 404, 413, 502) },
});

chats.openapi(create, async (c) => {
  const body = c.req.valid("json");
  // The new chat's object authenticates the token and checks the organization, on its own pool near the database.
  const chatId = crypto.randomUUID();
  const created = await answered(
    c,
    chatObjectOf(c, chatId).create(senderOf(c), {
      chatId,
      organizationId: body.organization_id,
      content: body.content,
      title: body.title,
      systemPrompt: body.system_prompt,
      modelConfigId: body.model_config_id,
      reasoningEffort: body.reasoning_effort,
      labels: body.labels,
      unsafeDynamicTools: body.unsafe_dynamic_tools,
      projectId: body.project_id,
      mcpServerIds: body.mcp_server_ids,
      planMode: planModeOf(body.plan_mode),
      clientType: body.client_type,
    }),
  );
  return c.json(created.chat, 201);
});

const list = createRoute({
  method: "get",
  path: "/",
  summary: "The caller's chats, newest first; `q` searches, `limit` with `after_id` or `offset` pages",
  middleware: [requestDb, requireCaller],
  request: { query: ListChatsQuery },
  responses: { 200: jsonContent(z.array(ChatSchema), "Chats"), ...errorResponses(400, 401) },
});

chats.openapi(list, async (c) => {
  const q = c.req.valid("query");
  const labelPairs = q.label === undefined ? [] : Array.isArray(q.label) ? q.label : [q.label];
  const labels: Record<string, string> = {};
  for (const pair of labelPairs) {
    const colon = pair.indexOf(":");
    if (colon <= 0)
      throw new ApiError(400, "validation_failed", "Request validation failed.", undefined, [
        { field: "label", detail: "labels are key:value" },
      ]);
    labels[pair.slice(0, colon)] = pair.slice(colon + 1);
  }
  const search = searchOf(q.q);
  const archivedParam = q.archived === undefined ? undefined : q.archived === "true";
  if (archivedParam !== undefined && search.archived !== undefined && archivedParam !== search.archived)
    throw new ApiError(400, "validation_failed", "Request validation failed.", undefined, [
      { field: "q", detail: "archived in q disagrees with the archived parameter" },
    ]);
  const archived = archivedParam ?? search.archived;
  const rows = await listChats(c.var.db.$client, {
    ownerId: c.var.caller.userId,
    ...(archived === undefined ? {} : { archived }),
    labels,
    titleWords: search.titleWords,
    ...(search.hasUnread === undefined ? {} : { hasUnread: search.hasUnread }),
    ...(q.limit === undefined ? {} : { limit: q.limit }),
    ...(q.after_id === undefined ? {} : { afterId: q.after_id }),
    ...(q.offset === undefined ? {} : { offset: q.offset }),
    ...(q.parent_chat_id === undefined ? {} : { parentChatId: q.parent_chat_id }),
  });
  // Each with its unread flag and subagents, in one more statement for the whole page.
  const views = await readChatViews(
    c.var.db.$client,
    rows.map((r) => r.id),
  );
  return c.json(
    views.map((v) => chatToWire(v.chat, v)),
    200,
  );
});

/** `q` parsed; a term the syntax refuses is a 400 naming it. */
function searchOf(q: string | undefined) {
  if (q === undefined) return parseChatSearch("");
  try {
    return parseChatSearch(q);
  } catch (err) {
    if (!(err instanceof ChatSearchError)) throw err;
    throw new ApiError(400, "validation_failed", "Request validation failed.", undefined, [{ field: "q", detail: err.message }]);
  }
}

const get = createRoute({
  method: "get",
  path: "/{chat}",
  summary: "One chat",
  middleware: [requireCredentials],
  request: { params: ChatParams },
  responses: { 200: jsonContent(ChatSchema, "The chat"), ...errorResponses(400, 401, 404) },
});

chats.openapi(get, async (c) => {
  const { chat: chatId } = c.req.valid("param");
  return c.json(await answered(c, chatObjectOf(c, chatId).read(senderOf(c), { chatId })), 200);
});

const update = createRoute({
  method: "patch",
  path: "/{chat}",
  summary: "Archive or unarchive the family (SetArchived), set the title, labels, pin order or MCP servers",
  middleware: [requireCredentials, jsonBodyLimit],
  request: { params: ChatParams, body: jsonBody(UpdateChatBody) },
  responses: { 204: { description: "The chat was updated; read it with GET /chats/{chat}" }, ...errorResponses(400, 401, 404, 409, 413) },
});

// 204 with no body, the status Coder's Go client requires of this route.
chats.openapi(update, async (c) => {
  const { chat: chatId } = c.req.valid("param");
  const body = c.req.valid("json");
  await answered(
    c,
    chatObjectOf(c, chatId).update(senderOf(c), {
      chatId,
      archived: body.archived,
      interruptRunning: body.interrupt === true,
      title: body.title,
      labels: body.labels,
      pinOrder: body.pin_order,
      mcpServerIds: body.mcp_server_ids,
      planMode: planModeOf(body.plan_mode),
    }),
  );
  return c.body(null, 204);
});
