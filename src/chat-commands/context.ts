/**
 * What every chat command runs with: the chat's store (its warm pool and the object's notifier),
 * a drizzle handle on the same pool for model-config checks, and the deployment options.
 */
import { ChatNotFoundError } from "../chatstate/index";
import type { Config } from "../config/env";
import type { Database } from "../db/database";
import type { ChatMessagePart, ChatRow } from "../db/schema/chats";
import type { ChatStore } from "../chats/store";
import type { ChatWorker } from "../chat-worker/chat-worker";
import type { HookDispatcher } from "../hooks/dispatcher";
import type { TurnSummary } from "../observability/turn-tracing";

export interface CommandContext {
  store: ChatStore;
  db: Database;
  config: Config;
  /** Deletes evicted files' bytes (after the transaction that evicted them committed). */
  evictFiles(storageKeys: readonly string[]): void;
  /** A title was written: tell the owner's chat list watchers (titles are outside transitions). */
  titleChanged(chat: ChatRow): void;
  /** Plan mode, labels, pin order or MCP servers were written: tell the owner's chat list watchers. */
  metadataChanged(chat: ChatRow): void;
  /**
   * The chat's first prompt was committed (create with content, or the first message of a chat
   * created empty): its title generation starts, in the background (docs/titles.md).
   */
  firstPrompt(chat: ChatRow, prompt: readonly ChatMessagePart[]): void;
  /** Lifecycle hooks (src/hooks); DISABLED_HOOKS when off. */
  hooks: HookDispatcher;
  /** A queued message this command promoted into history: the spec's queue_wait, from its queueing to now. */
  queueWait(queuedAt: Date, chat: Pick<ChatRow, "id" | "parentChatId">): void;
  /** The chat's last turns, newest first, as the object's tracer logged them. */
  latestTurns(limit: number): Promise<TurnSummary[]>;
  /** The chat's worker, which may acquire the chat inside the command that makes it runnable (docs/hot-path.md). */
  worker: ChatWorker;
  /** Commands on other chats, through their own objects (archiving a running family stops it first). */
  otherChats: { interrupt(cmd: ChatCommand): Promise<{ ok: boolean }> };
}

/** Another user's chat answers exactly as a missing one (docs/api.md "Auth": the caller never learns that it exists). */
export function assertOwner(chat: Pick<ChatRow, "id" | "ownerId">, callerId: string): void {
  if (chat.ownerId !== callerId) throw new ChatNotFoundError(chat.id);
}

/** `chat` (a row or its identity, as read), if it exists and is the caller's; ChatNotFoundError alike otherwise. */
export function ownedBy<T extends Pick<ChatRow, "ownerId">>(chat: T | undefined, cmd: ChatCommand): T {
  if (!chat || chat.ownerId !== cmd.callerId) throw new ChatNotFoundError(cmd.chatId);
  return chat;
}

/** What every chat command names: the chat, and the user on whose behalf it runs. */
export interface ChatCommand {
  chatId: string;
  callerId: string;
}
