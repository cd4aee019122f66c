/**
 * Whether a chat owner's turns search their MCP tools (docs/mcp.md#tool-search): the user's own
 * choice (`chat_user_preferences.mcp_tool_search`) when they made one, else the chat's
 * organization's (`organizations.mcp_tool_search`, off by default). One query: the "rule read"
 * the runner makes once per turn, and only for turns with MCP tools.
 */
import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/database";
import { organizations } from "../db/schema/auth";
import { chatUserPreferences } from "../db/schema/compaction";

export async function mcpToolSearchEnabled(db: Database, chat: { ownerId: string; organizationId: string }): Promise<boolean> {
  const [row] = await db
    .select({ enabled: sql<boolean>`coalesce(${chatUserPreferences.mcpToolSearch}, ${organizations.mcpToolSearch})` })
    .from(organizations)
    .leftJoin(chatUserPreferences, eq(chatUserPreferences.userId, chat.ownerId))
    .where(eq(organizations.id, chat.organizationId));
  return row?.enabled === true;
}

/** The organization's own setting: what its members' chats do unless the owner chose. */
export async function organizationToolSearch(db: Database, organizationId: string): Promise<boolean> {
  const [row] = await db.select({ enabled: organizations.mcpToolSearch }).from(organizations).where(eq(organizations.id, organizationId));
  return row?.enabled === true;
}

export async function setOrganizationToolSearch(db: Database, organizationId: string, enabled: boolean): Promise<void> {
  await db.update(organizations).set({ mcpToolSearch: enabled }).where(eq(organizations.id, organizationId));
}
