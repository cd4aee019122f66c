/**
 * POST /chats/{chat}/messages (SendMessage) and PATCH /chats/{chat}/messages/{message}
 * (EditMessage), with the response fields of docs/api.md "Chats".
 */
import type { ChatMessagePart, ChatRow } from "../db/schema/chats";
import { DEFAULT_CHAT_TITLE, fallbackTitle } from "../chats/title";
import { insertHistory } from "../chats/history";
import { editMessage } from "../chats/transitions/edit-message";
import { errorText, logger } from "../log/log";
import { sendMessage } from "../chats/transitions/send-message";
import { type ChatMessageWire, type ChatQueuedMessageWire, messageToWire, queuedToWire } from "../wire/chat-wire";
import { assertOwner, type CommandContext } from "./context";
import { type ChatInputPart, linkContentFiles } from "./content";
import { prepareMessage } from "./prepare-message";
import { submissionChat, submitPrompt } from "./prompt-hooks";

const HOOK_CONTEXT_REASON = "a lifecycle hook added context";

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
  const hookChat = await submissionChat(ctx, cmd.chatId, cmd.callerId);
  const prompt = hookChat
    ? await submitPrompt(ctx, {
        chat: hookChat.chat,
        parts: content.parts,
        source: "send",
        trigger: [hookChat.snapshotVersion],
        sessionStart: false,
        busyBehavior: cmd.busyBehavior,
      })
    : { parts: content.parts, context: [] };
  const input = {
    content: prompt.parts,
    busyBehavior: cmd.busyBehavior,
    modelConfigId: cmd.modelConfigId ?? null,
    reasoningEffort: cmd.reasoningEffort ?? null,
    createdBy: cmd.callerId,
    hookContext: prompt.context.map((row) => ({ content: row.content, model_only: row.modelOnly ?? false })),
  };
  const { value, chat } = await ctx.store.update(
    cmd.chatId,
    async (tx) => {
      assertOwner(tx.chat, cmd.callerId);
      const untitled = isUntitled(tx.chat);
      const sent = await sendMessage(tx, input);
      await linkContentFiles(ctx, tx, content);
      return { ...sent, untitled };
    },
    { prefetchTail: sendMessage.prefetchTail(input) },
  );
  if (value.promotedQueuedAt) ctx.queueWait?.(value.promotedQueuedAt, chat);
  if (value.untitled) await titleFirstMessage(ctx, cmd.chatId, prompt.parts);
  return {
    ...(value.message ? { message: messageToWire(value.message) } : {}),
    messages: value.messages.map((m) => messageToWire(m)),
    ...(value.queuedMessage ? { queued_message: queuedToWire(value.queuedMessage) } : {}),
    queued: value.queued,
    warnings: [],
  };
}

/**
 * A chat created with empty content is titled "New Chat"; its first message gives it the fallback
 * title instead (the title generation that follows the first turn then replaces it).
 */
function isUntitled(chat: Pick<ChatRow, "title" | "titleSource">): boolean {
  return chat.titleSource === "fallback" && chat.title === DEFAULT_CHAT_TITLE;
}

async function titleFirstMessage(ctx: CommandContext, chatId: string, parts: readonly ChatMessagePart[]): Promise<void> {
  const title = fallbackTitle(parts);
  if (title === DEFAULT_CHAT_TITLE) return;
  // Metadata after the commit: a failure here costs the title, never the message.
  try {
    const written = await ctx.store.writeTitle(chatId, title, "fallback");
    if (written.applied) ctx.titleChanged(written.chat);
  } catch (err) {
    logger.warn("fallback_title_failed", { chat_id: chatId, error: errorText(err) });
  }
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
  const hookChat = await submissionChat(ctx, cmd.chatId, cmd.callerId);
  const prompt = hookChat
    ? await submitPrompt(ctx, {
        chat: hookChat.chat,
        parts: content.parts,
        source: "edit",
        trigger: [cmd.messageId, hookChat.snapshotVersion],
        sessionStart: true,
      })
    : { parts: content.parts, context: [] };
  const { value } = await ctx.store.update(cmd.chatId, async (tx) => {
    assertOwner(tx.chat, cmd.callerId);
    const edited = await editMessage(tx, {
      messageId: cmd.messageId,
      content: prompt.parts,
      ...(cmd.modelConfigId === undefined ? {} : { modelConfigId: cmd.modelConfigId }),
      ...(cmd.reasoningEffort === undefined ? {} : { reasoningEffort: cmd.reasoningEffort }),
      createdBy: cmd.callerId,
    });
    if (prompt.context.length > 0) edited.messages.push(...(await insertHistory(tx, prompt.context, HOOK_CONTEXT_REASON)));
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
