/**
 * An organization's chat settings: `GET` (members) and `PUT` (organization admins)
 * `/organizations/{organization}/chats/settings`. Today one setting, MCP tool search
 * (docs/mcp.md#tool-search), which a member's own preference overrides for their chats.
 */
import { createRoute } from "@hono/zod-openapi";
import { OrganizationChatSettingsSchema, UpdateOrganizationChatSettingsBody } from "./organization-chat-settings-schemas";
import { OrganizationParams } from "./organization-schemas";
import { organizationToolSearch, setOrganizationToolSearch } from "../mcp/tool-search-setting";
import { requireCaller } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { requireOrganization } from "../http/org-access";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";

const PATH = "/{organization}/chats/settings";

const getRoute = createRoute({
  method: "get",
  path: PATH,
  summary: "The organization's chat settings (members)",
  middleware: [requestDb, requireCaller],
  request: { params: OrganizationParams },
  responses: { 200: jsonContent(OrganizationChatSettingsSchema, "The settings"), ...errorResponses(400, 401, 404) },
});

const putRoute = createRoute({
  method: "put",
  path: PATH,
  summary: "Replace the organization's chat settings (organization admins)",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { params: OrganizationParams, body: jsonBody(UpdateOrganizationChatSettingsBody) },
  responses: { 200: jsonContent(OrganizationChatSettingsSchema, "The stored settings"), ...errorResponses(400, 401, 403, 404, 413) },
});

export const organizationChatSettings = createRouter()
  .openapi(getRoute, async (c) => {
    const { organization } = c.req.valid("param");
    await requireOrganization(c, organization, "member");
    return c.json({ mcp_tool_search: await organizationToolSearch(c.var.db, organization) }, 200);
  })
  .openapi(putRoute, async (c) => {
    const { organization } = c.req.valid("param");
    await requireOrganization(c, organization, "admin");
    const { mcp_tool_search } = c.req.valid("json");
    await setOrganizationToolSearch(c.var.db, organization, mcp_tool_search);
    return c.json({ mcp_tool_search }, 200);
  });
