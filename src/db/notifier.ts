/**
 * The spec's two pubsub channels as one interface ("Pubsub" > "Notification channels"). There is
 * no pubsub here: the Durable Object plugs in an in-memory implementation (or forwards by RPC),
 * tests record. Calls happen after COMMIT only, never for a rolled-back transaction, and are best
 * effort: a throwing notifier is logged and ignored, because the data is already committed.
 */
import type { ChatStatus } from "../chatstate/states";
import type { ChatRow } from "./schema/chats";

/** `chat:update:{chat_id}` with the committed post-transition values. */
export interface ChatUpdatePayload {
  chat_id: string;
  snapshot_version: number;
  worker_id: string | null;
  runner_id: string | null;
  history_version: number;
  queue_version: number;
  retry_state_version: number;
  generation_attempt: number;
  status: ChatStatus;
  archived: boolean;
  /** Lets a subagent's object tell its parent's object that the child moved (docs/subagents.md). */
  parent_chat_id: string | null;
}

/** `chat:ownership`: the chat is runnable and no worker holds a fresh lease on it. */
export interface OwnershipHint {
  chat_id: string;
  snapshot_version: number;
}

export interface Notifier {
  chatUpdated(payload: ChatUpdatePayload): void;
  ownershipHint(hint: OwnershipHint): void;
}

export const NOOP_NOTIFIER: Notifier = {
  chatUpdated() {},
  ownershipHint() {},
};

export function chatUpdatePayload(chat: ChatRow): ChatUpdatePayload {
  return {
    chat_id: chat.id,
    snapshot_version: chat.snapshotVersion,
    worker_id: chat.workerId,
    runner_id: chat.runnerId,
    history_version: chat.historyVersion,
    queue_version: chat.queueVersion,
    retry_state_version: chat.retryStateVersion,
    generation_attempt: chat.generationAttempt,
    status: chat.status,
    archived: chat.archived,
    parent_chat_id: chat.parentChatId,
  };
}
