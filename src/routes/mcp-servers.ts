/**
 * Organization MCP servers (docs/mcp.md): members list and read them (to pick a chat's
 * `mcp_server_ids`), organization admins and the site owner write. Secrets never come back.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createMcpServer, deleteMcpServer, getMcpServer, listMcpServers, updateMcpServer } from "../mcp/servers";
import { requireCaller } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { notFoundError, requireOrganization } from "../http/org-access";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";
import {
  CreateMcpServerBody,
  McpServerOrgParams,
  McpServerParams,
  McpServerSchema,
  mcpServerJson,
  UpdateMcpServerBody,
} from "./mcp-server-schemas";

const BASE = "/{organization}/mcp-servers";

const createRouteDef = createRoute({
  method: "post",
  path: BASE,
  summary: "Register an MCP server (organization admin)",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { params: McpServerOrgParams, body: jsonBody(CreateMcpServerBody) },
  responses: { 201: jsonContent(McpServerSchema, "Created"), ...errorResponses(400, 401, 403, 404, 409, 413) },
});

const listRoute = createRoute({
  method: "get",
  path: BASE,
  summary: "List the organization's MCP servers (members)",
  middleware: [requestDb, requireCaller],
  request: { params: McpServerOrgParams },
  responses: { 200: jsonContent(z.array(McpServerSchema), "MCP servers, oldest first"), ...errorResponses(400, 401, 404) },
});

const getRoute = createRoute({
  method: "get",
  path: `${BASE}/{id}`,
  summary: "Get an MCP server (members)",
  middleware: [requestDb, requireCaller],
  request: { params: McpServerParams },
  responses: { 200: jsonContent(McpServerSchema, "The MCP server"), ...errorResponses(400, 401, 404) },
});

const patchRoute = createRoute({
  method: "patch",
  path: `${BASE}/{id}`,
  summary: "Update an MCP server (organization admin); headers replace the stored ones, null clears bearer_token",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { params: McpServerParams, body: jsonBody(UpdateMcpServerBody) },
  responses: { 200: jsonContent(McpServerSchema, "Updated"), ...errorResponses(400, 401, 403, 404, 409, 413) },
});

const deleteRouteDef = createRoute({
  method: "delete",
  path: `${BASE}/{id}`,
  summary: "Delete an MCP server (organization admin); chats naming it skip it from their next turn",
  middleware: [requestDb, requireCaller],
  request: { params: McpServerParams },
  responses: { 204: { description: "Deleted" }, ...errorResponses(400, 401, 403, 404) },
});

export const mcpServerRoutes = createRouter()
  .openapi(createRouteDef, async (c) => {
    const { organization } = c.req.valid("param");
    const input = c.req.valid("json");
    await requireOrganization(c, organization, "admin");
    const row = await createMcpServer(c.var.db, organization, {
      name: input.name,
      url: input.url,
      headers: input.headers,
      bearerToken: input.bearer_token,
      enabled: input.enabled,
    });
    return c.json(mcpServerJson(row), 201);
  })
  .openapi(listRoute, async (c) => {
    const { organization } = c.req.valid("param");
    await requireOrganization(c, organization, "member");
    return c.json((await listMcpServers(c.var.db, organization)).map(mcpServerJson), 200);
  })
  .openapi(getRoute, async (c) => {
    const { organization, id } = c.req.valid("param");
    await requireOrganization(c, organization, "member");
    const row = await getMcpServer(c.var.db, organization, id);
    if (!row) throw notFoundError("MCP server");
    return c.json(mcpServerJson(row), 200);
  })
  .openapi(patchRoute, async (c) => {
    const { organization, id } = c.req.valid("param");
    const input = c.req.valid("json");
    await requireOrganization(c, organization, "admin");
    const row = await updateMcpServer(
      c.var.db,
      organization,
      id,
      { name: input.name, url: input.url, headers: input.headers, bearerToken: input.bearer_token, enabled: input.enabled },
      new Date(),
    );
    if (!row) throw notFoundError("MCP server");
    return c.json(mcpServerJson(row), 200);
  })
  .openapi(deleteRouteDef, async (c) => {
    const { organization, id } = c.req.valid("param");
    await requireOrganization(c, organization, "admin");
    if (!(await deleteMcpServer(c.var.db, organization, id))) throw notFoundError("MCP server");
    return c.body(null, 204);
  });
