/**
 * GET /chats/{chat} and GET /chats/{chat}/messages, served by the chat's object on its warm pool
 * (docs/hot-path.md): the Worker opens no connection of its own for a chat's reads.
 */
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
import { type ChatCommand, type CommandContext, ownedBy } from "./context";

export async function readChatCommand(ctx: CommandContext, cmd: ChatCommand): Promise<ChatWire> {
  return chatToWire(ownedBy(await ctx.store.chat(cmd.chatId), cmd));
}

export interface MessagesWire {
  messages: ChatMessageWire[];
  queued_messages: ChatQueuedMessageWire[];
}

export async function readMessagesCommand(ctx: CommandContext, cmd: ChatCommand): Promise<MessagesWire> {
  // One snapshot for the owner check, the history and the queue, so they agree with each other.
  const [messages, queue] = await inTransaction(ctx.store.pool, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", async (client) => {
    ownedBy(await getChat(client, cmd.chatId), cmd);
    return [await listMessages(client, cmd.chatId), await listQueue(client, cmd.chatId)] as const;
  });
  return { messages: messages.map((m) => messageToWire(m)), queued_messages: queue.map(queuedToWire) };
}
