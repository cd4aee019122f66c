/**
 * Organization MCP servers (docs/mcp.md): members list and read them (to pick a chat's
 * `mcp_server_ids`), organization admins and the site owner write. Secrets never come back.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { configFromEnv } from "../config/env";
import { createMcpServer, deleteMcpServer, getMcpServer, listMcpServers, updateMcpServer } from "../mcp/servers";
import { mcpUrlGuard } from "../mcp/url-guard";
import { OutboundRefusedError } from "../outbound/guard";
import { ApiError } from "../http/errors";
import type { AppEnv } from "../http/app-env";
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

/**
 * A URL the service will fetch for the organization must pass the outbound guard
 * (docs/hardening.md): else 400 `url_not_allowed`, naming why, and nothing is written.
 */
async function checkServerUrl(c: Context<AppEnv>, url: string): Promise<void> {
  try {
    await mcpUrlGuard(configFromEnv(c.env)).check(url);
  } catch (err) {
    if (!(err instanceof OutboundRefusedError)) throw err;
    const detail = err.kind === "credentials" ? `${err.detail}; send them as bearer_token or headers` : err.detail;
    throw new ApiError(400, "url_not_allowed", `The MCP server URL is not allowed: ${detail}.`, undefined, [{ field: "url", detail }]);
  }
}

/**
 * Secrets are write-only and belong to the URL they were given for (docs/mcp.md): a PATCH that
 * moves the server to another URL clears the bearer token and headers it does not send again, so
 * an admin cannot point another admin's credentials at a server of their own.
 */
async function secretsOnUrlChange(
  c: Context<AppEnv>,
  organization: string,
  id: string,
  input: { url?: string | undefined; headers?: Record<string, string> | undefined; bearer_token?: string | null | undefined },
): Promise<{ headers: Record<string, string> | undefined; bearerToken: string | null | undefined }> {
  const sent = { headers: input.headers, bearerToken: input.bearer_token };
  if (input.url === undefined) return sent;
  const current = await getMcpServer(c.var.db, organization, id);
  if (!current || current.url === input.url) return sent;
  return { headers: input.headers ?? {}, bearerToken: input.bearer_token ?? null };
}

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
    await checkServerUrl(c, input.url);
    const row = await createMcpServer(
      c.var.db,
      organization,
      {
        name: input.name,
        url: input.url,
        headers: input.headers,
        bearerToken: input.bearer_token,
        enabled: input.enabled,
      },
      configFromEnv(c.env).CHAT_SECRETS_KEYS,
    );
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
    if (input.url !== undefined) await checkServerUrl(c, input.url);
    const row = await updateMcpServer(
      c.var.db,
      organization,
      id,
      { name: input.name, url: input.url, ...(await secretsOnUrlChange(c, organization, id, input)), enabled: input.enabled },
      new Date(),
      configFromEnv(c.env).CHAT_SECRETS_KEYS,
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
