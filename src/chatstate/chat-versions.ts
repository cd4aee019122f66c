/**
 * A chat's versions: the fields every committed transition may move and that every reader of a
 * change compares, the `chat:update` notification, a Sync (its hints and its snapshot) and the
 * runner. One type and two mappers, so a new field reaches every reader or none.
 *
 * Kept structural (no row or payload import): the database and the notifier hand their own
 * shapes in, and this module stays below both.
 */
import type { ChatStatus, OwnershipState } from "./states";

export interface ChatVersions {
  snapshotVersion: number;
  historyVersion: number;
  queueVersion: number;
  retryStateVersion: number;
  generationAttempt: number;
  status: ChatStatus;
  workerId: string | null;
}

/** The versions as `chat:update` carries them (the spec's snake_case payload fields). */
export interface ChatVersionsNotification {
  snapshot_version: number;
  history_version: number;
  queue_version: number;
  retry_state_version: number;
  generation_attempt: number;
  status: ChatStatus;
  worker_id: string | null;
}

/** The versions of a chat row (or any read of its columns), without the row's other fields. */
export function versionsFromRow(row: Readonly<ChatVersions>): ChatVersions {
  return {
    snapshotVersion: row.snapshotVersion,
    historyVersion: row.historyVersion,
    queueVersion: row.queueVersion,
    retryStateVersion: row.retryStateVersion,
    generationAttempt: row.generationAttempt,
    status: row.status,
    workerId: row.workerId,
  };
}

/** The versions a `chat:update` payload carries. */
export function versionsFromNotification(p: Readonly<ChatVersionsNotification>): ChatVersions {
  return {
    snapshotVersion: p.snapshot_version,
    historyVersion: p.history_version,
    queueVersion: p.queue_version,
    retryStateVersion: p.retry_state_version,
    generationAttempt: p.generation_attempt,
    status: p.status,
    workerId: p.worker_id,
  };
}

/** The payload fields of `versions`: the way back of `versionsFromNotification`, for the notifier. */
export function notificationOfVersions(v: Readonly<ChatVersions>): ChatVersionsNotification {
  return {
    snapshot_version: v.snapshotVersion,
    history_version: v.historyVersion,
    queue_version: v.queueVersion,
    retry_state_version: v.retryStateVersion,
    generation_attempt: v.generationAttempt,
    status: v.status,
    worker_id: v.workerId,
  };
}

/** The spec's ownership state: U while worker_id is null, O once a worker holds the chat. */
export function ownershipOf(chat: Readonly<Pick<ChatVersions, "workerId">>): OwnershipState {
  return chat.workerId === null ? "U" : "O";
}
