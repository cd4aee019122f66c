/**
 * DELETE /chats/{chat}/queue/{queued} (DeleteQueuedMessage) and
 * POST /chats/{chat}/queue/{queued}/promote (PromoteQueuedMessage).
 */
import { listQueue } from "../chats/queries";
import { deleteQueuedMessage, promoteQueuedMessage } from "../chats/transitions/queued-messages";
import { type ChatMessageWire, type ChatQueuedMessageWire, messageToWire, queuedToWire } from "../wire/chat-wire";
import { assertOwner, type CommandContext } from "./context";
import { prefetchFor } from "../chats/lock-prefetch";

export interface QueueCommand {
  chatId: string;
  callerId: string;
  queuedMessageId: number;
}

export async function deleteQueuedCommand(ctx: CommandContext, cmd: QueueCommand): Promise<null> {
  await ctx.store.update(cmd.chatId, (tx) => {
    assertOwner(tx.chat, cmd.callerId);
    return deleteQueuedMessage(tx, { queuedMessageId: cmd.queuedMessageId });
  });
  return null;
}

export interface PromoteResponse {
  message?: ChatMessageWire;
  messages: ChatMessageWire[];
  queued_messages: ChatQueuedMessageWire[];
}

export async function promoteQueuedCommand(ctx: CommandContext, cmd: QueueCommand): Promise<PromoteResponse> {
  const input = { queuedMessageId: cmd.queuedMessageId };
  const { value, chat } = await ctx.store.update(
    cmd.chatId,
    async (tx) => {
      assertOwner(tx.chat, cmd.callerId);
      const promoted = await promoteQueuedMessage(tx, input);
      // The queue as this transaction leaves it, read under the same lock.
      return { promoted, queue: await listQueue(await tx.transaction.connection(), cmd.chatId) };
    },
    { prefetchTail: prefetchFor(promoteQueuedMessage, input) },
  );
  // Into history now (E1, A1); from R1 and I1 the interrupt task promotes it and records the wait.
  if (value.promoted.message) ctx.queueWait(value.promoted.queuedMessage.createdAt, chat);
  return {
    ...(value.promoted.message ? { message: messageToWire(value.promoted.message) } : {}),
    messages: value.promoted.messages.map((m) => messageToWire(m)),
    queued_messages: value.queue.map(queuedToWire),
  };
}
