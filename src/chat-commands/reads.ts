/**
 * GET /chats/{chat} and GET /chats/{chat}/messages, served by the chat's object on its warm pool
 * (docs/hot-path.md): the Worker opens no connection of its own for a chat's reads.
 */
import {
  type ChatMessageWire,
  type ChatQueuedMessageWire,
  type ChatWire,
  chatToWire,
  messageToWire,
  queuedToWire,
} from "../wire/chat-wire";
import { readChatView } from "../chats/chat-views";
import { type ChatCommand, type CommandContext, ownedBy } from "./context";

/** The chat with its unread flag and subagents, read in one statement (src/chats/chat-views.ts). */
export async function readChatCommand(ctx: CommandContext, cmd: ChatCommand): Promise<ChatWire> {
  const view = await readChatView(ctx.store.pool, cmd.chatId);
  ownedBy(view?.chat, cmd);
  return chatToWire(view!.chat, view!);
}

export interface MessagesWire {
  messages: ChatMessageWire[];
  queued_messages: ChatQueuedMessageWire[];
  /** Older messages exist before the first of `messages` (always false for the whole history). */
  has_more: boolean;
}

/** A page of the history: absent, the whole shown history as before paging existed. */
export interface MessagesCommand extends ChatCommand {
  page?: { beforeId?: number | undefined; limit: number } | undefined;
}

export async function readMessagesCommand(ctx: CommandContext, cmd: MessagesCommand): Promise<MessagesWire> {
  const { messages, queue, hasMore } = await ctx.store.messagesAndQueue(cmd.chatId, (chat) => ownedBy(chat, cmd), cmd.page);
  return { messages: messages.map((m) => messageToWire(m)), queued_messages: queue.map(queuedToWire), has_more: hasMore };
}
