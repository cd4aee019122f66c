/**
 * The one-transition endpoints: interrupt, compact, clear and reconcile-invalid answer with the
 * chat (200); tool-results answers 204 with no body, the status Coder's Go client requires.
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

chatActions.openapi(
  action("interrupt", "Interrupt (with FinishInterruption in the same transaction when no worker owns the chat)"),
  async (c) => {
    const { chat: chatId } = c.req.valid("param");
    return c.json(await answered(c, chatObjectOf(c, chatId).interrupt(senderOf(c), { chatId })), 200);
  },
);

// 200, not 202, though the worker runs the compaction turn afterwards: Coder's client takes only 200.
chatActions.openapi(action("compact", "Request a manual compaction (RequestCompaction); the chat answered is running it"), async (c) => {
  const { chat: chatId } = c.req.valid("param");
  return c.json(await answered(c, chatObjectOf(c, chatId).compact(senderOf(c), { chatId })), 200);
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
  responses: { 204: { description: "The results were taken; the chat runs on" }, ...errorResponses(400, 401, 404, 409, 413) },
});

chatActions.openapi(toolResults, async (c) => {
  const { chat: chatId } = c.req.valid("param");
  const { results } = c.req.valid("json");
  await answered(c, chatObjectOf(c, chatId).submitToolResults(senderOf(c), { chatId, results }));
  return c.body(null, 204);
});
