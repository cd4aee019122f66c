/**
 * What one Sync reads from the database, all in one read-only repeatable-read transaction (spec
 * "Sync operation"). The reader decides what to read from the chat row and the loop's cursors with
 * the same conditions `applySnapshot` applies, so nothing is read that will not be used.
 *
 * The contract between the stream loop (src/stream/) and its database reader
 * (src/stream/sync-reads.ts), owned by neither, so that neither folder imports the other.
 */
import type { ChatVersions } from "../chatstate/chat-versions";
import type { RetryState } from "../db/schema/chats";
import type { ChatMessageWire, ChatQueuedMessageWire } from "../wire/chat-wire";
import type { PendingToolCall, StreamErrorPayload } from "../wire/stream-events";

/** The chat row as a Sync reads it: its versions, and what its events carry. */
export interface SyncChatRow extends ChatVersions {
  retryState: RetryState | null;
  /** The persisted error payload; null unless the chat has one. */
  error: StreamErrorPayload | null;
}

export interface SyncSnapshot {
  chat: SyncChatRow;
  /**
   * Present when chat.historyVersion > cursors.historyVersion. `refresh: false`: the client-visible
   * rows with revision > cursors.historyVersion, none soft-deleted. `refresh: true`: one of those
   * was soft-deleted, so `rows` is the whole current client-visible history.
   */
  messages: { refresh: boolean; rows: ChatMessageWire[] } | null;
  /** The full queue in client-visible order, when chat.queueVersion > cursors.queueVersion. */
  queue: ChatQueuedMessageWire[] | null;
  /**
   * The pending dynamic tool calls, when the chat is in requires_action and its history_version is
   * past cursors.actionRequiredHistoryVersion.
   */
  pendingToolCalls: PendingToolCall[] | null;
}

/** The loop's cursors the reader decides on (the stream loop's StreamCursors has them all). */
export interface SyncReadCursors {
  snapshotVersion: number;
  historyVersion: number;
  queueVersion: number;
  actionRequiredHistoryVersion: number;
}

/** Reads a Sync's database state; null when the chat is gone. */
export type SyncReader = (chatId: string, cursors: Readonly<SyncReadCursors>) => Promise<SyncSnapshot | null>;
