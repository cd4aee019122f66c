/**
 * POST /chats/{chat}/messages (SendMessage) and PATCH /chats/{chat}/messages/{message}
 * (EditMessage), with the response fields of api.md.
 */
import { editMessage } from "../db/transitions/edit-message";
import { sendMessage } from "../db/transitions/send-message";
import { type ChatMessageWire, type ChatQueuedMessageWire, messageToWire, queuedToWire } from "../db/wire";
import { assertOwner, type CommandContext } from "./context";
import { type ChatInputPart, toMessageParts } from "./content";
import { checkModelChoiceForChat } from "./model-choice";

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
  const content = toMessageParts(cmd.content);
  await checkModelChoiceForChat(ctx, cmd.chatId, cmd.callerId, cmd.modelConfigId);
  const input = {
    content,
    busyBehavior: cmd.busyBehavior,
    modelConfigId: cmd.modelConfigId ?? null,
    reasoningEffort: cmd.reasoningEffort ?? null,
    createdBy: cmd.callerId,
  };
  const { value } = await ctx.store.update(
    cmd.chatId,
    (tx) => {
      assertOwner(tx.chat, cmd.callerId);
      return sendMessage(tx, input);
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
  const content = toMessageParts(cmd.content);
  await checkModelChoiceForChat(ctx, cmd.chatId, cmd.callerId, cmd.modelConfigId);
  const { value } = await ctx.store.update(cmd.chatId, (tx) => {
    assertOwner(tx.chat, cmd.callerId);
    return editMessage(tx, {
      messageId: cmd.messageId,
      content,
      ...(cmd.modelConfigId === undefined ? {} : { modelConfigId: cmd.modelConfigId }),
      ...(cmd.reasoningEffort === undefined ? {} : { reasoningEffort: cmd.reasoningEffort }),
      createdBy: cmd.callerId,
    });
  });
  return {
    message: messageToWire(value.message),
    messages: value.messages.map((m) => messageToWire(m)),
    deleted_message_ids: value.deletedMessageIds,
    warnings: [],
  };
}
