/**
 * `/chats/{chat}/messages`: read the history and queue, send (SendMessage), edit (EditMessage);
 * and `/chats/{chat}/prompts`, the text of its user messages.
 */
import { createRoute } from "@hono/zod-openapi";
import { requireCredentials } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { answered, chatObjectOf, senderOf } from "./chat-object-calls";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";
import {
  ChatParams,
  EditMessageBody,
  EditMessageResponse,
  ListMessagesQuery,
  MESSAGES_PAGE_DEFAULT,
  MessageParams,
  MessagesResponse,
  ChatPromptsQuery,
  ChatPromptsResponse,
  SendMessageBody,
  SendMessageResponse,
} from "./chat-schemas";

export const chatMessages = createRouter();
chatMessages.use(requireCredentials);

const read = createRoute({
  method: "get",
  path: "/{chat}/messages",
  summary: "The chat's active history (all of it, or a page by `before_id` and `limit`) and its queue",
  request: { params: ChatParams, query: ListMessagesQuery },
  responses: { 200: jsonContent(MessagesResponse, "History and queue"), ...errorResponses(400, 401, 404) },
});

chatMessages.openapi(read, async (c) => {
  const { chat: chatId } = c.req.valid("param");
  const { before_id: beforeId, limit } = c.req.valid("query");
  // No parameter: the whole history, as before paging existed (this project's web app reads it so).
  const page = beforeId === undefined && limit === undefined ? undefined : { beforeId, limit: limit ?? MESSAGES_PAGE_DEFAULT };
  return c.json(await answered(c, chatObjectOf(c, chatId).messages(senderOf(c), { chatId, page })), 200);
});

const send = createRoute({
  method: "post",
  path: "/{chat}/messages",
  summary: "Send a message (SendMessage, busy_behavior queue or interrupt)",
  middleware: [jsonBodyLimit],
  request: { params: ChatParams, body: jsonBody(SendMessageBody) },
  responses: { 200: jsonContent(SendMessageResponse, "Inserted or queued"), ...errorResponses(400, 401, 403, 404, 409, 413, 429, 502) },
});

chatMessages.openapi(send, async (c) => {
  const { chat: chatId } = c.req.valid("param");
  const body = c.req.valid("json");
  const result = await answered(
    c,
    chatObjectOf(c, chatId).sendMessage(senderOf(c), {
      chatId,
      content: body.content,
      busyBehavior: body.busy_behavior,
      modelConfigId: body.model_config_id,
      reasoningEffort: body.reasoning_effort,
    }),
  );
  return c.json(result, 200);
});

const edit = createRoute({
  method: "patch",
  path: "/{chat}/messages/{message}",
  summary: "Edit a user message (EditMessage): the suffix is soft-deleted and the turn restarts",
  middleware: [jsonBodyLimit],
  request: { params: MessageParams, body: jsonBody(EditMessageBody) },
  responses: { 200: jsonContent(EditMessageResponse, "The replacement"), ...errorResponses(400, 401, 403, 404, 409, 413, 502) },
});

chatMessages.openapi(edit, async (c) => {
  const { chat: chatId, message: messageId } = c.req.valid("param");
  const body = c.req.valid("json");
  const result = await answered(
    c,
    chatObjectOf(c, chatId).editMessage(senderOf(c), {
      chatId,
      messageId,
      content: body.content,
      modelConfigId: body.model_config_id,
      reasoningEffort: body.reasoning_effort,
    }),
  );
  return c.json(result, 200);
});

const prompts = createRoute({
  method: "get",
  path: "/{chat}/prompts",
  summary: "The chat's prompts, newest first: each user message's text, for a composer's history (Coder's ChatPromptsResponse)",
  request: { params: ChatParams, query: ChatPromptsQuery },
  responses: { 200: jsonContent(ChatPromptsResponse, "The prompts, newest first"), ...errorResponses(400, 401, 404) },
});

chatMessages.openapi(prompts, async (c) => {
  const { chat: chatId } = c.req.valid("param");
  const { limit } = c.req.valid("query");
  return c.json(await answered(c, chatObjectOf(c, chatId).prompts(senderOf(c), { chatId, limit })), 200);
});
