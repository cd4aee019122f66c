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
import { type ChatCommand, type CommandContext, ownedBy } from "./context";

export async function readChatCommand(ctx: CommandContext, cmd: ChatCommand): Promise<ChatWire> {
  return chatToWire(ownedBy(await ctx.store.chat(cmd.chatId), cmd));
}

export interface MessagesWire {
  messages: ChatMessageWire[];
  queued_messages: ChatQueuedMessageWire[];
}

export async function readMessagesCommand(ctx: CommandContext, cmd: ChatCommand): Promise<MessagesWire> {
  const { messages, queue } = await ctx.store.messagesAndQueue(cmd.chatId, (chat) => ownedBy(chat, cmd));
  return { messages: messages.map((m) => messageToWire(m)), queued_messages: queue.map(queuedToWire) };
}
