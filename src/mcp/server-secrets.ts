/**
 * An MCP server's credentials at rest (docs/hardening.md): the bearer token and each header value
 * sealed, bound to the server's row and organization, their key ids beside them. The header names
 * stay readable (the API lists them). Only the chat object's connection opens them.
 */
import type { McpServerRow } from "../db/schema/mcp";
import type { KeyRing } from "../secrets/key-ring";
import { openMap, openText, type SealedColumn, sealMap, sealText } from "../secrets/sealed-column";

export const MCP_BEARER_TOKEN: SealedColumn = {
  table: "mcp_servers",
  column: "bearer_token",
  keyColumn: "bearer_token_sealed_with",
  shape: "text",
  tenantColumn: "organization_id",
};

export const MCP_HEADERS: SealedColumn = {
  table: "mcp_servers",
  column: "headers",
  keyColumn: "headers_sealed_with",
  shape: "map",
  tenantColumn: "organization_id",
};

type SealedFields = Pick<McpServerRow, "bearerToken" | "bearerTokenSealedWith" | "headers" | "headersSealedWith">;

/** The row an MCP server's secrets are bound to. */
export interface McpServerIdentity {
  id: string;
  organizationId: string;
}

/** The columns to write for the credentials present in `input` (absent ones are left as they are). */
export async function sealedMcpSecrets(
  keys: KeyRing,
  server: McpServerIdentity,
  input: { bearerToken?: string | null | undefined; headers?: Record<string, string> | undefined },
): Promise<Partial<SealedFields>> {
  const row = { id: server.id, tenant: server.organizationId };
  const out: Partial<SealedFields> = {};
  if (input.bearerToken !== undefined) {
    const stored = await sealText(keys, MCP_BEARER_TOKEN, row, input.bearerToken);
    out.bearerToken = stored.value;
    out.bearerTokenSealedWith = stored.keyId;
  }
  if (input.headers !== undefined) {
    const stored = await sealMap(keys, MCP_HEADERS, row, input.headers);
    out.headers = stored.value;
    out.headersSealedWith = stored.keyId;
  }
  return out;
}

/** The server with its credentials in the clear, for connecting; throws a SecretsError when they cannot be opened. */
export async function openedMcpServer<S extends McpServerIdentity & SealedFields>(keys: KeyRing, server: S): Promise<S> {
  const row = { id: server.id, tenant: server.organizationId };
  const [bearerToken, headers] = await Promise.all([
    openText(keys, MCP_BEARER_TOKEN, row, { value: server.bearerToken, keyId: server.bearerTokenSealedWith }),
    openMap(keys, MCP_HEADERS, row, { value: server.headers, keyId: server.headersSealedWith }),
  ]);
  return { ...server, bearerToken, headers, bearerTokenSealedWith: null, headersSealedWith: null };
}
