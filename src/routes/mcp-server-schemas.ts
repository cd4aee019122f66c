/**
 * The wire shapes of organization MCP servers (docs/mcp.md) as zod schemas: the routes validate
 * with them, the OpenAPI document and the client SDK's types come from them. Secrets go in and
 * never come out: responses carry `has_bearer_token` and the header names, not their values.
 */
import { z } from "@hono/zod-openapi";
import type { McpServerRow } from "../mcp/servers";

export const McpServerSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    name: z.string(),
    url: z.string(),
    /** The names of the stored headers; their values are never returned. */
    header_names: z.array(z.string()),
    has_bearer_token: z.boolean(),
    enabled: z.boolean(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .openapi("McpServer");

export function mcpServerJson(row: McpServerRow): z.infer<typeof McpServerSchema> {
  return {
    id: row.id,
    organization_id: row.organizationId,
    name: row.name,
    url: row.url,
    header_names: Object.keys(row.headers).sort(),
    has_bearer_token: row.bearerToken !== null,
    enabled: row.enabled,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** At most this many extra headers per server. */
export const MAX_MCP_HEADERS = 32;

/** Headers the transport sets itself (the protocol's own, and the body's framing). */
const RESERVED_HEADERS = new Set([
  "accept",
  "content-type",
  "content-length",
  "host",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
]);

const name = z.string().trim().min(1).max(64);
/** The outbound checks (no credentials, no private address) run in the route: they may ask DNS. */
const url = z.url({ protocol: /^https?$/, error: "an http(s) URL" }).max(2048);
const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/, { error: "an HTTP header name" })
  .refine((n) => !RESERVED_HEADERS.has(n.toLowerCase()), { error: "set by the MCP transport itself" });
/**
 * Header values are sent as they are: printable ASCII, spaces and tabs. A CR or LF would split
 * the header, and fetch refuses anything above U+00FF.
 */
function isHeaderValue(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code !== 0x09 && (code < 0x20 || code > 0x7e)) return false;
  }
  return true;
}
const headerValue = z.string().max(8192).refine(isHeaderValue, { error: "printable ASCII, spaces and tabs only" });
const headers = z
  .record(headerName, headerValue)
  .refine((h) => Object.keys(h).length <= MAX_MCP_HEADERS, { error: `at most ${MAX_MCP_HEADERS} headers` })
  .refine((h) => new Set(Object.keys(h).map((k) => k.toLowerCase())).size === Object.keys(h).length, {
    error: "header names must be unique (case-insensitively)",
  });
const bearerToken = z
  .string()
  .min(1)
  .max(8192)
  .regex(/^[\x21-\x7e]+$/, { error: "visible ASCII characters only" });

export const CreateMcpServerBody = z
  .object({
    name,
    url: url.openapi({
      description:
        "The server's Streamable HTTP endpoint. No credentials in it, and its host must not be or resolve to a loopback, private, link-local or reserved address (else 400 url_not_allowed).",
    }),
    headers: headers.optional(),
    bearer_token: bearerToken.optional(),
    enabled: z.boolean().optional(),
  })
  .openapi("CreateMcpServerRequest");

export const UpdateMcpServerBody = z
  .object({
    name: name.optional(),
    url: url.optional().openapi({
      description:
        "A new URL must pass the outbound checks (else 400 url_not_allowed). Changing it clears the stored bearer_token and headers unless this request sends them again.",
    }),
    /** Replaces every stored header; `{}` clears them. */
    headers: headers.optional(),
    /** null clears the token. */
    bearer_token: bearerToken.nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .openapi("UpdateMcpServerRequest");

export const McpServerOrgParams = z.object({ organization: z.uuid() });
export const McpServerParams = z.object({ organization: z.uuid(), id: z.uuid() });

/** A chat's `mcp_server_ids` (create and update): distinct enabled servers of the chat's organization. */
export const McpServerIdsField = z.array(z.uuid()).max(16);
