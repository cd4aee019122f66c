/**
 * `GET /chats/{chat}/cost`: what the chat and its subagents cost, by model and by turn
 * (docs/usage-cost.md). One chat's route: its object authenticates the caller and checks that the
 * chat is theirs.
 */
import { createRoute } from "@hono/zod-openapi";
import { requireCredentials } from "../http/auth";
import { createRouter, errorResponses, jsonContent } from "../http/router";
import { answered, chatObjectOf, senderOf } from "./chat-object-calls";
import { ChatParams } from "./chat-schemas";
import { ChatCostQuery, ChatCostSchema } from "./cost-schemas";

const getCost = createRoute({
  method: "get",
  path: "/{chat}/cost",
  summary: "What the chat and its subagents cost: exact totals, by chat, by model and by turn",
  middleware: [requireCredentials],
  request: { params: ChatParams, query: ChatCostQuery },
  responses: { 200: jsonContent(ChatCostSchema, "The chat's usage and cost"), ...errorResponses(400, 401, 404) },
});

export const chatCost = createRouter().openapi(getCost, async (c) => {
  const { chat: chatId } = c.req.valid("param");
  const { turn_limit: turnLimit } = c.req.valid("query");
  return c.json(await answered(c, chatObjectOf(c, chatId).cost(senderOf(c), { chatId, turnLimit })), 200);
});
