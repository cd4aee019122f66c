/**
 * A user's chat preferences: the personal compaction threshold, and whether their chats search
 * their MCP tools (docs/mcp.md#tool-search). A user without a row has every preference unset.
 */
import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/database";
import { chatUserPreferences } from "../db/schema/compaction";

export interface ChatPreferences {
  /** Percent of the chat model's window at which chats compact; null: the model config's own. */
  compactionThresholdPercent: number | null;
  /** MCP tool search for the user's chats; null: their organization's setting. */
  mcpToolSearch: boolean | null;
}

const columns = {
  compactionThresholdPercent: chatUserPreferences.compactionThresholdPercent,
  mcpToolSearch: chatUserPreferences.mcpToolSearch,
};

export async function getChatPreferences(db: Database, userId: string): Promise<ChatPreferences> {
  const [row] = await db.select(columns).from(chatUserPreferences).where(eq(chatUserPreferences.userId, userId));
  return { compactionThresholdPercent: row?.compactionThresholdPercent ?? null, mcpToolSearch: row?.mcpToolSearch ?? null };
}

/** Writes the preferences given; one left undefined keeps its stored value. */
export async function setChatPreferences(db: Database, userId: string, prefs: Partial<ChatPreferences>): Promise<ChatPreferences> {
  const set = {
    ...(prefs.compactionThresholdPercent === undefined ? {} : { compactionThresholdPercent: prefs.compactionThresholdPercent }),
    ...(prefs.mcpToolSearch === undefined ? {} : { mcpToolSearch: prefs.mcpToolSearch }),
  };
  const [row] = await db
    .insert(chatUserPreferences)
    .values({ userId, ...set })
    .onConflictDoUpdate({ target: chatUserPreferences.userId, set: { ...set, updatedAt: sql`now()` } })
    .returning(columns);
  return { compactionThresholdPercent: row?.compactionThresholdPercent ?? null, mcpToolSearch: row?.mcpToolSearch ?? null };
}
