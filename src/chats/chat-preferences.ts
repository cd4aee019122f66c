/**
 * A user's chat preferences (today: the personal compaction threshold). A user without a row has
 * every preference unset.
 */
import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/database";
import { chatUserPreferences } from "../db/schema/compaction";

export interface ChatPreferences {
  /** Percent of the chat model's window at which chats compact; null: the model config's own. */
  compactionThresholdPercent: number | null;
}

export async function getChatPreferences(db: Database, userId: string): Promise<ChatPreferences> {
  const [row] = await db
    .select({ compactionThresholdPercent: chatUserPreferences.compactionThresholdPercent })
    .from(chatUserPreferences)
    .where(eq(chatUserPreferences.userId, userId));
  return { compactionThresholdPercent: row?.compactionThresholdPercent ?? null };
}

export async function setChatPreferences(db: Database, userId: string, prefs: ChatPreferences): Promise<ChatPreferences> {
  const [row] = await db
    .insert(chatUserPreferences)
    .values({ userId, compactionThresholdPercent: prefs.compactionThresholdPercent })
    .onConflictDoUpdate({
      target: chatUserPreferences.userId,
      set: { compactionThresholdPercent: prefs.compactionThresholdPercent, updatedAt: sql`now()` },
    })
    .returning({ compactionThresholdPercent: chatUserPreferences.compactionThresholdPercent });
  return { compactionThresholdPercent: row?.compactionThresholdPercent ?? null };
}
