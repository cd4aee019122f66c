/**
 * `GET /chats/{chat}/turns`: the chat's last turns as its object traced them (the spec's turn
 * timeline): each turn's outcome, duration and stages. Kept by the chat's object, so the read
 * goes there.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { requireCredentials } from "../http/auth";
import { answered, chatObjectOf, senderOf } from "./chat-object-calls";
import { createRouter, errorResponses, jsonContent } from "../http/router";
import { ChatParams } from "./chat-schemas";
import { ChatTurnSchema, ChatTurnsQuery } from "./chat-turn-schemas";

export const chatTurns = createRouter();
chatTurns.use(requireCredentials);

const list = createRoute({
  method: "get",
  path: "/{chat}/turns",
  summary: "The chat's last turns, newest first, with their stages (the turn timeline)",
  request: { params: ChatParams, query: ChatTurnsQuery },
  responses: { 200: jsonContent(z.array(ChatTurnSchema), "The turns"), ...errorResponses(400, 401, 404) },
});

chatTurns.openapi(list, async (c) => {
  const { chat: chatId } = c.req.valid("param");
  const { limit } = c.req.valid("query");
  return c.json(await answered(c, chatObjectOf(c, chatId).turns(senderOf(c), { chatId, limit })), 200);
});
