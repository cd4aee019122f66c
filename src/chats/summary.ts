/**
 * A chat's summary and turn status label are metadata, as titles are (./title.ts): written outside
 * transitions, without a snapshot bump, a notification or a change to updated_at. Each write names
 * the history_version it was made from and applies only over an older one, checked in the UPDATE
 * itself, so a call that finishes late never replaces the summary of a later turn.
 */
import { chatFromRaw, type Queryable } from "../db/rows";
import type { ChatRow } from "../db/schema/chats";

export interface SummaryWrite {
  summary: string;
  lastTurnSummary: string;
  /** The chat's history_version when the summarized turn ended. */
  historyVersion: number;
}

/** The row as written, or null when a summary of this or a later history is already there (or the chat is gone). */
export async function writeSummary(db: Queryable, chatId: string, write: SummaryWrite): Promise<ChatRow | null> {
  const { rows } = await db.query(
    `UPDATE chats
     SET summary = $2, last_turn_summary = $3, summary_history_version = $4, summary_updated_at = now()
     WHERE id = $1 AND (summary_history_version IS NULL OR summary_history_version < $4)
     RETURNING *`,
    [chatId, write.summary, write.lastTurnSummary, write.historyVersion],
  );
  return rows[0] === undefined ? null : chatFromRaw(rows[0]);
}
