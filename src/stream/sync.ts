/**
 * The stream loop's Sync operation (spec "Sync operation"), pure: whether hints call for a fetch,
 * and how a fetched snapshot turns into client events, new cursors and the relay's target.
 */
import { versionsFromRow } from "../chatstate/chat-versions";
import type { ChatStreamEvent } from "../wire/stream-events";
import type { SyncSnapshot } from "./sync-snapshot";
import type { RelayTarget, StreamCursors, SyncHints } from "./sync-state";

/** Steps 1-3: does anything in the hints say local state may be stale? */
export function hintsCallForFetch(local: Readonly<StreamCursors>, hints: SyncHints): boolean {
  if (hints.snapshotVersion !== undefined && hints.snapshotVersion <= local.snapshotVersion) return false;
  return (
    (hints.historyVersion !== undefined && hints.historyVersion > local.historyVersion) ||
    (hints.queueVersion !== undefined && hints.queueVersion > local.queueVersion) ||
    (hints.retryStateVersion !== undefined && hints.retryStateVersion > local.retryStateVersion) ||
    (hints.status !== undefined && hints.status !== local.status) ||
    (hints.workerId !== undefined && hints.workerId !== local.workerId) ||
    (hints.generationAttempt !== undefined && hints.generationAttempt !== local.generationAttempt)
  );
}

export interface SyncResult {
  cursors: StreamCursors;
  /** Message id -> latest revision sent, after this Sync. */
  known: Map<number, number>;
  events: ChatStreamEvent[];
  /** Step 9: the relay's new target; undefined leaves it as it is. */
  relay: RelayTarget | undefined;
}

/**
 * Applies a fetched snapshot in the spec's order (steps 1-10). Returns null when the snapshot is
 * not newer than local state (the fetch was a no-op).
 */
export function applySnapshot(
  chatId: string,
  local: Readonly<StreamCursors>,
  known: ReadonlyMap<number, number>,
  snap: SyncSnapshot,
): SyncResult | null {
  const db = snap.chat;
  if (db.snapshotVersion <= local.snapshotVersion) return null;
  const events: ChatStreamEvent[] = [];
  const next: StreamCursors = { ...local };
  let nextKnown = new Map(known);

  // 1. message synchronization
  if (db.historyVersion > local.historyVersion && snap.messages) {
    if (snap.messages.refresh) {
      events.push({ type: "history_reset", chat_id: chatId });
      nextKnown = new Map();
      for (const m of snap.messages.rows) {
        events.push({ type: "message", chat_id: chatId, message: m });
        nextKnown.set(m.id, m.revision);
      }
    } else {
      for (const m of snap.messages.rows) {
        if (m.revision <= (nextKnown.get(m.id) ?? 0)) continue;
        events.push({ type: "message", chat_id: chatId, message: m });
        nextKnown.set(m.id, m.revision);
      }
    }
  }
  // 2. queue synchronization
  if (db.queueVersion > local.queueVersion && snap.queue) {
    events.push({ type: "queue_update", chat_id: chatId, queued_messages: snap.queue });
  }
  // 3. status synchronization
  if (db.status !== local.status) events.push({ type: "status", chat_id: chatId, status: { status: db.status } });
  // 4. error synchronization, once per history version
  if (db.status === "error" && db.historyVersion > local.errorHistoryVersion) {
    if (db.error) events.push({ type: "error", chat_id: chatId, error: db.error });
    next.errorHistoryVersion = db.historyVersion;
  }
  // 5. action-required synchronization, once per history version
  if (db.status === "requires_action" && db.historyVersion > local.actionRequiredHistoryVersion) {
    events.push({ type: "action_required", chat_id: chatId, action_required: { tool_calls: snap.pendingToolCalls ?? [] } });
    next.actionRequiredHistoryVersion = db.historyVersion;
  }
  // 6. retry-state synchronization
  if (db.retryStateVersion > local.retryStateVersion && db.retryState !== null && db.status === "running") {
    events.push({ type: "retry", chat_id: chatId, retry: db.retryState });
  }
  // 7. attempt_retired
  const sameEpisode = db.historyVersion === local.historyVersion && db.generationAttempt === local.generationAttempt;
  if (!sameEpisode) next.attemptRetired = false;
  if (db.retryState !== null || db.status === "error" || (db.retryStateVersion > local.retryStateVersion && sameEpisode)) {
    next.attemptRetired = true;
  }
  // 8. preview reset
  if (db.historyVersion !== local.historyVersion || (db.generationAttempt !== local.generationAttempt && db.generationAttempt !== 0)) {
    next.lastPartSeq = 0;
    events.push({ type: "preview_reset", chat_id: chatId });
  }
  // 9. relay target
  const relay: RelayTarget | undefined =
    db.generationAttempt > 0
      ? { workerId: db.workerId, historyVersion: db.historyVersion, generationAttempt: db.generationAttempt }
      : undefined;
  // 10. save
  Object.assign(next, versionsFromRow(db));
  return { cursors: next, known: nextKnown, events, relay };
}
