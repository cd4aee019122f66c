/**
 * The spec's two pubsub channels as one interface ("Pubsub" > "Notification channels"). There is
 * no pubsub here: the Durable Object plugs in an in-memory implementation (or forwards by RPC),
 * tests record. Calls happen after COMMIT only, never for a rolled-back transaction, and are best
 * effort: a throwing notifier is logged and ignored, because the data is already committed.
 */
import { type ChatVersionsNotification, notificationOfVersions, versionsFromRow } from "../chatstate/chat-versions";
import type { ChatRow } from "../db/schema/chats";

/** `chat:update:{chat_id}` with the committed post-transition values: the chat's versions and who runs it. */
export interface ChatUpdatePayload extends ChatVersionsNotification {
  chat_id: string;
  /** Whose chat: their chat list watch hears of the change (src/chats/chat-watchers.ts). */
  owner_id: string;
  runner_id: string | null;
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
    owner_id: chat.ownerId,
    ...notificationOfVersions(versionsFromRow(chat)),
    runner_id: chat.runnerId,
    archived: chat.archived,
    parent_chat_id: chat.parentChatId,
  };
}
