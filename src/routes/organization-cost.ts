/**
 * `GET /organizations/{organization}/chats/cost/summary`: what the organization's chats cost over a
 * time range, by model and by user (docs/usage-cost.md). Organization admins and the site owner;
 * a member gets 403, anyone else 404.
 */
import { createRoute } from "@hono/zod-openapi";
import { readOrganizationCost } from "../chats/cost";
import { requireCaller } from "../http/auth";
import { requireOrganization } from "../http/org-access";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses, jsonContent } from "../http/router";
import { costRange, OrganizationCostQuery, OrganizationCostSummarySchema } from "./cost-schemas";
import { OrgParams } from "./model-config-schemas";

const summary = createRoute({
  method: "get",
  path: "/{organization}/chats/cost/summary",
  summary: "What the organization's chats cost over a time range, by model and by user (organization admin)",
  middleware: [requestDb, requireCaller],
  request: { params: OrgParams, query: OrganizationCostQuery },
  responses: {
    200: jsonContent(OrganizationCostSummarySchema, "The organization's usage and cost"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const organizationCost = createRouter().openapi(summary, async (c) => {
  const { organization } = c.req.valid("param");
  const query = c.req.valid("query");
  await requireOrganization(c, organization, "admin");
  const { start, end } = costRange(query, new Date());
  const read = await readOrganizationCost(c.var.db.$client, organization, { start, end, limit: query.limit });
  return c.json({ ...read, start_date: start.toISOString(), end_date: end.toISOString() }, 200);
});
