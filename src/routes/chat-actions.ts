/**
 * The one-transition endpoints that answer with the chat: interrupt, tool-results, compact,
 * clear and reconcile-invalid.
 */
import { createRoute } from "@hono/zod-openapi";
import { requireCredentials } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { answered, chatObjectOf, senderOf } from "./chat-object-calls";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";
import { ChatParams, ChatSchema, ToolResultsBody } from "./chat-schemas";

export const chatActions = createRouter();
chatActions.use(requireCredentials);

const action = (path: string, summary: string) =>
  createRoute({
    method: "post",
    path: `/{chat}/${path}`,
    summary,
    request: { params: ChatParams },
    responses: { 200: jsonContent(ChatSchema, "The chat"), ...errorResponses(400, 401, 404, 409) },
  });

/** Accepted: the worker runs the compaction turn. */
const compact = createRoute({
  method: "post",
  path: "/{chat}/compact",
  summary: "Request a manual compaction (RequestCompaction)",
  request: { params: ChatParams },
  responses: { 202: jsonContent(ChatSchema, "The chat, now running the compaction"), ...errorResponses(400, 401, 404, 409) },
});

chatActions.openapi(
  action("interrupt", "Interrupt (with FinishInterruption in the same transaction when no worker owns the chat)"),
  async (c) => {
    const { chat: chatId } = c.req.valid("param");
    return c.json(await answered(c, chatObjectOf(c, chatId).interrupt(senderOf(c), { chatId })), 200);
  },
);

chatActions.openapi(compact, async (c) => {
  const { chat: chatId } = c.req.valid("param");
  return c.json(await answered(c, chatObjectOf(c, chatId).compact(senderOf(c), { chatId })), 202);
});

chatActions.openapi(action("clear", "Clear the model's context (ClearContext)"), async (c) => {
  const { chat: chatId } = c.req.valid("param");
  return c.json(await answered(c, chatObjectOf(c, chatId).clear(senderOf(c), { chatId })), 200);
});

chatActions.openapi(action("reconcile-invalid", "Move a chat out of an invalid state (ReconcileInvalidState)"), async (c) => {
  const { chat: chatId } = c.req.valid("param");
  return c.json(await answered(c, chatObjectOf(c, chatId).reconcile(senderOf(c), { chatId })), 200);
});

const toolResults = createRoute({
  method: "post",
  path: "/{chat}/tool-results",
  summary: "Answer the pending dynamic tool calls (CompleteRequiresAction)",
  middleware: [jsonBodyLimit],
  request: { params: ChatParams, body: jsonBody(ToolResultsBody) },
  responses: { 200: jsonContent(ChatSchema, "The chat"), ...errorResponses(400, 401, 404, 409, 413) },
});

chatActions.openapi(toolResults, async (c) => {
  const { chat: chatId } = c.req.valid("param");
  const { results } = c.req.valid("json");
  return c.json(await answered(c, chatObjectOf(c, chatId).submitToolResults(senderOf(c), { chatId, results })), 200);
});
