/**
 * GET /chats/{chat} and GET /chats/{chat}/messages, served by the chat's object on its warm pool
 * (docs/hot-path.md): the Worker opens no connection of its own for a chat's reads.
 */
import { ChatNotFoundError } from "../chatstate/index";
import { getChat, listMessages, listQueue } from "../chats/queries";
import { inTransaction } from "../db/transaction";
import {
  type ChatMessageWire,
  type ChatQueuedMessageWire,
  type ChatWire,
  chatToWire,
  messageToWire,
  queuedToWire,
} from "../wire/chat-wire";
import { assertOwner, type ChatCommand, type CommandContext } from "./context";

export async function readChatCommand(ctx: CommandContext, cmd: ChatCommand): Promise<ChatWire> {
  const chat = await ctx.store.chat(cmd.chatId);
  if (!chat) throw new ChatNotFoundError(cmd.chatId);
  assertOwner(chat, cmd.callerId);
  return chatToWire(chat);
}

export interface MessagesWire {
  messages: ChatMessageWire[];
  queued_messages: ChatQueuedMessageWire[];
}

export async function readMessagesCommand(ctx: CommandContext, cmd: ChatCommand): Promise<MessagesWire> {
  // One snapshot for the owner check, the history and the queue, so they agree with each other.
  const [messages, queue] = await inTransaction(ctx.store.pool, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", async (client) => {
    const chat = await getChat(client, cmd.chatId);
    if (!chat) throw new ChatNotFoundError(cmd.chatId);
    assertOwner(chat, cmd.callerId);
    return [await listMessages(client, cmd.chatId), await listQueue(client, cmd.chatId)] as const;
  });
  return { messages: messages.map((m) => messageToWire(m)), queued_messages: queue.map(queuedToWire) };
}
