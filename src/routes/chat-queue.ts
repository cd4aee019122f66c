/**
 * `/chats/{chat}/queue/{queued}`: delete (DeleteQueuedMessage) and promote (PromoteQueuedMessage).
 */
import { createRoute } from "@hono/zod-openapi";
import { requireCredentials } from "../http/auth";
import { answered, chatObjectOf, senderOf } from "./chat-object-calls";
import { createRouter, errorResponses, jsonContent } from "../http/router";
import { PromoteResponse, QueuedParams } from "./chat-schemas";

export const chatQueue = createRouter();
chatQueue.use(requireCredentials);

const remove = createRoute({
  method: "delete",
  path: "/{chat}/queue/{queued}",
  summary: "Remove a queued message (DeleteQueuedMessage)",
  request: { params: QueuedParams },
  responses: { 204: { description: "Removed" }, ...errorResponses(400, 401, 404, 409) },
});

chatQueue.openapi(remove, async (c) => {
  const { chat: chatId, queued } = c.req.valid("param");
  await answered(c, chatObjectOf(c, chatId).deleteQueued(senderOf(c), { chatId, queuedMessageId: queued }));
  return c.body(null, 204);
});

const promote = createRoute({
  method: "post",
  path: "/{chat}/queue/{queued}/promote",
  summary: "Make a queued message the next to run (PromoteQueuedMessage)",
  request: { params: QueuedParams },
  responses: { 200: jsonContent(PromoteResponse, "Promoted"), ...errorResponses(400, 401, 404, 409) },
});

chatQueue.openapi(promote, async (c) => {
  const { chat: chatId, queued } = c.req.valid("param");
  return c.json(await answered(c, chatObjectOf(c, chatId).promoteQueued(senderOf(c), { chatId, queuedMessageId: queued })), 200);
});
