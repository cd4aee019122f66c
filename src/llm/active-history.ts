/**
 * Reading a chat's history the way prompts and the decision need it. Active history is every row
 * that is not deleted, in id (insertion) order. A compaction or clear boundary is a triplet of compressed rows:
 * a model-only anchor (the summary or the clear sentinel) and a visible tool call and result that
 * only decorate the transcript (db/transitions/clear-context.ts).
 */
import type { ChatMessageRow } from "../db/schema/chats";

/** The columns this module reads; full rows fit. */
export type HistoryRow = Pick<ChatMessageRow, "id" | "role" | "content" | "deleted" | "modelOnly" | "compressed">;

/** A message as a transaction writes it (src/chats/history.ts NewMessage). */
type WrittenMessage = Pick<ChatMessageRow, "role" | "content"> & { modelOnly?: boolean; compressed?: boolean };

/**
 * `written` (messages a transaction is inserting) as the rows they will be after `history`, for a
 * decision made before their INSERT has answered: only the columns this module reads, with ids
 * after the last of `history` (the real ones are larger still, and in the same order).
 */
export function rowsAsWritten(history: readonly HistoryRow[], written: readonly WrittenMessage[]): HistoryRow[] {
  const last = history.reduce((max, row) => Math.max(max, row.id), 0);
  return written.map((m, i) => ({
    id: last + i + 1,
    role: m.role,
    content: m.content,
    deleted: false,
    modelOnly: m.modelOnly ?? false,
    compressed: m.compressed ?? false,
  }));
}

/** Not deleted, oldest first. */
export function activeRows<R extends HistoryRow>(history: readonly R[]): R[] {
  return history.filter((row) => !row.deleted).sort((a, b) => a.id - b.id);
}

/** The newest boundary anchor (compressed and model-only), -1 when the chat has none. */
export function latestAnchorIndex(active: readonly HistoryRow[]): number {
  return active.findLastIndex((row) => row.compressed && row.modelOnly);
}

/** The newest compressed row of any kind, -1 when none (the database's LATEST_BOUNDARY_SQL). */
export function latestBoundaryIndex(active: readonly HistoryRow[]): number {
  return active.findLastIndex((row) => row.compressed);
}

/**
 * The rows a prompt is built from: system rows wherever they are, then the newest anchor and the
 * uncompressed rows after it ("Prompt queries prune history at the newest boundary"). Boundary
 * decorations and older anchors never reach the model.
 */
export function promptRows<R extends HistoryRow>(history: readonly R[]): R[] {
  const active = activeRows(history);
  const anchor = latestAnchorIndex(active);
  return active.filter((row, i) => {
    if (i === anchor) return true;
    if (row.compressed) return false;
    return row.role === "system" || i > anchor;
  });
}

/** From the last active assistant row on: where pending tool calls live (the database's ACTIVE_TAIL_SQL). */
export function activeTail<R extends HistoryRow>(active: readonly R[]): R[] {
  const last = active.findLastIndex((row) => row.role === "assistant");
  return last === -1 ? [] : active.slice(last);
}
