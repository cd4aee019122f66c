/**
 * `GET /chats/cost/{user}/summary`: what a user's chats cost over a time range, by model and by
 * chat (docs/usage-cost.md). A caller reads their own (`me`); the site owner anyone's.
 */
import { createRoute } from "@hono/zod-openapi";
import { readUserCost } from "../chats/cost";
import { requireCaller } from "../http/auth";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses, jsonContent } from "../http/router";
import { CostUserParams, costRange, UserCostQuery, UserCostSummarySchema } from "./cost-schemas";
import { targetUser } from "./target-user";

const summary = createRoute({
  method: "get",
  path: "/{user}/summary",
  summary: "What a user's chats cost over a time range (the caller's own; the site owner: anyone's)",
  middleware: [requestDb, requireCaller],
  request: { params: CostUserParams, query: UserCostQuery },
  responses: { 200: jsonContent(UserCostSummarySchema, "The user's usage and cost"), ...errorResponses(400, 401, 404) },
});

export const userCost = createRouter().openapi(summary, async (c) => {
  const { user: ref } = c.req.valid("param");
  const query = c.req.valid("query");
  const user = await targetUser(c, ref);
  const { start, end } = costRange(query, new Date());
  const read = await readUserCost(c.var.db.$client, user.id, query.organization_id ?? null, { start, end, limit: query.limit });
  return c.json({ ...read, start_date: start.toISOString(), end_date: end.toISOString() }, 200);
});
