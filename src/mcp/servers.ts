/**
 * Organization-scoped MCP servers (docs/mcp.md). The bearer token and header values are stored
 * sealed for the chat objects that connect (server-secrets.ts) and never leave through the API
 * (the routes project `has_bearer_token` and `header_names`), exactly like provider API keys.
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import { AlreadyExistsError } from "../accounts/errors";
import type { Database } from "../db/database";
import { isUniqueViolation } from "../db/pg-errors";
import { type McpServerRow, mcpServers } from "../db/schema/mcp";
import type { KeyRing } from "../secrets/key-ring";
import { McpServerUnavailableError } from "./errors";
import { sealedMcpSecrets } from "./server-secrets";

export type { McpServerRow };

export interface NewMcpServer {
  name: string;
  url: string;
  headers?: Record<string, string> | undefined;
  bearerToken?: string | null | undefined;
  enabled?: boolean | undefined;
}

/** Fields present are written; null clears the bearer token. */
export type McpServerPatch = Partial<NewMcpServer>;

/** `keys`: the deployment's CHAT_SECRETS_KEYS, which seal the bearer token and header values. */
export async function createMcpServer(db: Database, organizationId: string, input: NewMcpServer, keys: KeyRing): Promise<McpServerRow> {
  // The id is chosen here: the sealed credentials are bound to it.
  const id = crypto.randomUUID();
  try {
    const [row] = await db
      .insert(mcpServers)
      .values({
        id,
        organizationId,
        name: input.name,
        url: input.url,
        ...(await sealedMcpSecrets(keys, { id, organizationId }, { headers: input.headers ?? {}, bearerToken: input.bearerToken ?? null })),
        enabled: input.enabled ?? true,
      })
      .returning();
    if (!row) throw new Error("insert into mcp_servers returned no row");
    return row;
  } catch (err) {
    if (isUniqueViolation(err)) throw new AlreadyExistsError("MCP server", "name");
    throw err;
  }
}

export async function listMcpServers(db: Database, organizationId: string): Promise<McpServerRow[]> {
  return db
    .select()
    .from(mcpServers)
    .where(eq(mcpServers.organizationId, organizationId))
    .orderBy(asc(mcpServers.createdAt), asc(mcpServers.id));
}

export async function getMcpServer(db: Database, organizationId: string, id: string): Promise<McpServerRow | null> {
  const [row] = await db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.organizationId, organizationId), eq(mcpServers.id, id)));
  return row ?? null;
}

export async function updateMcpServer(
  db: Database,
  organizationId: string,
  id: string,
  patch: McpServerPatch,
  now: Date,
  keys: KeyRing,
): Promise<McpServerRow | null> {
  const set: Partial<typeof mcpServers.$inferInsert> = { updatedAt: now };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.url !== undefined) set.url = patch.url;
  Object.assign(set, await sealedMcpSecrets(keys, { id, organizationId }, patch));
  if (patch.enabled !== undefined) set.enabled = patch.enabled;
  try {
    const [row] = await db
      .update(mcpServers)
      .set(set)
      .where(and(eq(mcpServers.organizationId, organizationId), eq(mcpServers.id, id)))
      .returning();
    return row ?? null;
  } catch (err) {
    if (isUniqueViolation(err)) throw new AlreadyExistsError("MCP server", "name");
    throw err;
  }
}

/** False when it does not exist. Chats that name it keep the ID and skip it at preparation. */
export async function deleteMcpServer(db: Database, organizationId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(mcpServers)
    .where(and(eq(mcpServers.organizationId, organizationId), eq(mcpServers.id, id)))
    .returning({ id: mcpServers.id });
  return rows.length > 0;
}

/** The organization's servers among `ids`, in the order of `ids` (missing ones left out). */
export async function mcpServersByIds(db: Database, organizationId: string, ids: readonly string[]): Promise<McpServerRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.organizationId, organizationId), inArray(mcpServers.id, [...ids])));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * A chat's `mcp_server_ids` on create or update: every ID an enabled server of the chat's
 * organization, else McpServerUnavailableError naming the ones that are not. Duplicates are dropped.
 */
export async function checkChatMcpServers(db: Database, organizationId: string, ids: readonly string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  const usable = new Set((await mcpServersByIds(db, organizationId, unique)).filter((s) => s.enabled).map((s) => s.id));
  const refused = unique.filter((id) => !usable.has(id));
  if (refused.length > 0) throw new McpServerUnavailableError(refused);
  return unique;
}
