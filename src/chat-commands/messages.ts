/**
 * POST /chats/{chat}/messages (SendMessage) and PATCH /chats/{chat}/messages/{message}
 * (EditMessage), with the response fields of api.md.
 */
import { editMessage } from "../db/transitions/edit-message";
import { sendMessage } from "../db/transitions/send-message";
import { type ChatMessageWire, type ChatQueuedMessageWire, messageToWire, queuedToWire } from "../db/wire";
import { assertOwner, type CommandContext } from "./context";
import { type ChatInputPart, linkContentFiles } from "./content";
import { prepareMessage } from "./prepare-message";

export interface SendMessageCommand {
  chatId: string;
  callerId: string;
  content: ChatInputPart[];
  busyBehavior: "queue" | "interrupt";
  modelConfigId?: string | undefined;
  reasoningEffort?: string | undefined;
}

export interface SendMessageResponse {
  message?: ChatMessageWire;
  messages: ChatMessageWire[];
  queued_message?: ChatQueuedMessageWire;
  queued: boolean;
  warnings: string[];
}

export async function sendMessageCommand(ctx: CommandContext, cmd: SendMessageCommand): Promise<SendMessageResponse> {
  const content = await prepareMessage(ctx, cmd, cmd.content, cmd.modelConfigId);
  const input = {
    content: content.parts,
    busyBehavior: cmd.busyBehavior,
    modelConfigId: cmd.modelConfigId ?? null,
    reasoningEffort: cmd.reasoningEffort ?? null,
    createdBy: cmd.callerId,
  };
  const { value } = await ctx.store.update(
    cmd.chatId,
    async (tx) => {
      assertOwner(tx.chat, cmd.callerId);
      const sent = await sendMessage(tx, input);
      await linkContentFiles(ctx, tx, content);
      return sent;
    },
    { prefetchTail: sendMessage.prefetchTail(input) },
  );
  return {
    ...(value.message ? { message: messageToWire(value.message) } : {}),
    messages: value.messages.map((m) => messageToWire(m)),
    ...(value.queuedMessage ? { queued_message: queuedToWire(value.queuedMessage) } : {}),
    queued: value.queued,
    warnings: [],
  };
}

export interface EditMessageCommand {
  chatId: string;
  callerId: string;
  messageId: string;
  content: ChatInputPart[];
  modelConfigId?: string | undefined;
  reasoningEffort?: string | undefined;
}

export interface EditMessageResponse {
  message: ChatMessageWire;
  messages: ChatMessageWire[];
  deleted_message_ids: string[];
  warnings: string[];
}

export async function editMessageCommand(ctx: CommandContext, cmd: EditMessageCommand): Promise<EditMessageResponse> {
  const content = await prepareMessage(ctx, cmd, cmd.content, cmd.modelConfigId);
  const { value } = await ctx.store.update(cmd.chatId, async (tx) => {
    assertOwner(tx.chat, cmd.callerId);
    const edited = await editMessage(tx, {
      messageId: cmd.messageId,
      content: content.parts,
      ...(cmd.modelConfigId === undefined ? {} : { modelConfigId: cmd.modelConfigId }),
      ...(cmd.reasoningEffort === undefined ? {} : { reasoningEffort: cmd.reasoningEffort }),
      createdBy: cmd.callerId,
    });
    await linkContentFiles(ctx, tx, content);
    return edited;
  });
  return {
    message: messageToWire(value.message),
    messages: value.messages.map((m) => messageToWire(m)),
    deleted_message_ids: value.deletedMessageIds,
    warnings: [],
  };
}
