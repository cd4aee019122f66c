/**
 * The stream loop's local state (spec "Local stream state") and the inputs of its Sync operation.
 *
 * The cursors are small and plain so they fit in a hibernated WebSocket's attachment (2 KiB) and
 * can be given back by a resuming client. The known-message revision map is kept apart: it only
 * ever names revisions at or below `historyVersion` (every row the loop sent had revision <= the
 * history_version it then saved), and message sync fetches rows with revision > historyVersion, so
 * after a hibernation an empty map emits exactly what the full map would have.
 */
import type { ChatVersions } from "../chatstate/chat-versions";
import type { ChatStatus } from "../chatstate/states";

/** The chat's versions as of the last Sync, and what the loop has sent since. */
export interface StreamCursors extends Omit<ChatVersions, "status"> {
  /** The status last sent to the client; null: unset. */
  status: ChatStatus | null;
  /** history_version of the last `error` event sent. */
  errorHistoryVersion: number;
  /** Latest history_version for which `action_required` was sent. */
  actionRequiredHistoryVersion: number;
  /** Last accepted preview part seq of the current episode. */
  lastPartSeq: number;
  /** The current generation attempt failed: its remaining parts are dropped. */
  attemptRetired: boolean;
}

/** The spec's initial null state. */
export const NULL_CURSORS: Readonly<StreamCursors> = Object.freeze({
  snapshotVersion: 0,
  historyVersion: 0,
  queueVersion: 0,
  retryStateVersion: 0,
  status: null,
  workerId: null,
  generationAttempt: 0,
  errorHistoryVersion: 0,
  actionRequiredHistoryVersion: 0,
  lastPartSeq: 0,
  attemptRetired: false,
});

/**
 * Sync's optional hints (from a notification or the sync poller): any of the chat's versions.
 * `workerId` is tri-state: undefined = not compared, null = compare against "no worker", a
 * string = that worker.
 */
export type SyncHints = Partial<ChatVersions>;

/** Which episode the relay forwards parts of; workerId null stops it. */
export interface RelayTarget {
  workerId: string | null;
  historyVersion: number;
  generationAttempt: number;
}
