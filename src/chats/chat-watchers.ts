/**
 * The entry point for telling a user's chat list watchers that one of their chats changed
 * (docs/stream.md "The chat list watch"): call `chatChanged(ownerId, chatId)` after a commit that
 * changes anything GET /chats shows, a deletion included. It is a hint: the watch object reads the
 * chat itself, and its catch-up poll heals a lost one. Transitions reach it through
 * `notifyingWatchers`, which wraps a store's Notifier; metadata writes (titles, summaries, PATCH)
 * and anything outside the store call it directly.
 */
import { errorText, logger } from "../log/log";
import { chatWatchStub } from "../placement/chat-watch-stub";
import type { Notifier } from "./notifier";

export interface ChatWatchers {
  chatChanged(ownerId: string, chatId: string): void;
}

export const NO_WATCHERS: ChatWatchers = { chatChanged() {} };

/** Watchers reached by RPC to the owner's watch object, kept alive past the caller with `waitUntil`. */
export function chatWatchers(env: Env, waitUntil: (work: Promise<unknown>) => void, source: string): ChatWatchers {
  return {
    chatChanged(ownerId, chatId) {
      waitUntil(
        chatWatchStub(env, ownerId)
          .chatChanged(ownerId, chatId)
          .catch((err: unknown) => logger.warn(`${source}_watch_notify_failed`, { chat_id: chatId, error: errorText(err) })),
      );
    },
  };
}

/** `inner`, plus each committed transition's chat to its owner's watchers. */
export function notifyingWatchers(inner: Notifier, watchers: ChatWatchers): Notifier {
  return {
    chatUpdated(payload) {
      inner.chatUpdated(payload);
      watchers.chatChanged(payload.owner_id, payload.chat_id);
    },
    ownershipHint: (hint) => inner.ownershipHint(hint),
  };
}
