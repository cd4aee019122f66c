/**
 * POST /chats/{chat}/messages (SendMessage) and PATCH /chats/{chat}/messages/{message}
 * (EditMessage), with the response fields of docs/api.md "Chats".
 */
import type { ChatMessagePart, ChatRow } from "../db/schema/chats";
import type { ChatTx } from "../chats/chat-tx";
import { DEFAULT_CHAT_TITLE, fallbackTitle } from "../chats/title";
import { queueHistory } from "../chats/history";
import { editMessage } from "../chats/transitions/edit-message";
import { sendMessage } from "../chats/transitions/send-message";
import { type ChatMessageWire, type ChatQueuedMessageWire, messageToWire, queuedToWire } from "../wire/chat-wire";
import { assertOwner, type CommandContext } from "./context";
import { type ChatInputPart, linkContentFiles } from "./content";
import { prepareMessage } from "./prepare-message";
import { submissionChat, submitPrompt } from "./prompt-hooks";
import { prefetchFor } from "../chats/lock-prefetch";

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
  const { value, chat } = await ctx.worker.update(
    cmd.chatId,
    async (tx) => {
      assertOwner(tx.chat, cmd.callerId);
      const untitled = isUntitled(tx.chat);
      const sent = await sendMessage(tx, input);
      await linkContentFiles(ctx, tx, content);
      const titled = untitled && titleFirstMessage(tx, prompt.parts);
      return { sent, titled };
    },
    { prefetchTail: prefetchFor(sendMessage, input) },
  );
  const { sent, titled } = value;
  if (sent.promotedQueuedAt) ctx.queueWait(sent.promotedQueuedAt, chat);
  if (titled) {
    ctx.titleChanged(chat);
    ctx.firstPrompt(chat, prompt.parts);
  }
  return {
    ...(sent.message ? { message: messageToWire(sent.message) } : {}),
    messages: sent.messages.map((m) => messageToWire(m)),
    ...(sent.queuedMessage ? { queued_message: queuedToWire(sent.queuedMessage) } : {}),
    queued: sent.queued,
    warnings: [],
  };
}

/**
 * A chat created with empty content is titled "New Chat"; its first message gives it the fallback
 * title instead, and its title generation starts (the generated title then replaces it).
 */
function isUntitled(chat: Pick<ChatRow, "title" | "titleSource">): boolean {
  return chat.titleSource === "fallback" && chat.title === DEFAULT_CHAT_TITLE;
}

/**
 * The fallback title, staged for the send's own commit write on the row it holds locked: no
 * statement of its own, where a write after the commit would wait for a connection the turn's
 * acquisition has just taken. On an untitled chat ("New Chat", source fallback) a fallback title
 * always outranks what is there. Whether a title was staged.
 */
function titleFirstMessage(tx: ChatTx, parts: readonly ChatMessagePart[]): boolean {
  const title = fallbackTitle(parts);
  if (title === DEFAULT_CHAT_TITLE) return false;
  tx.stageTitle(title, "fallback");
  return true;
}

export interface EditMessageCommand {
  chatId: string;
  callerId: string;
  messageId: number;
  content: ChatInputPart[];
  modelConfigId?: string | undefined;
  reasoningEffort?: string | undefined;
}

export interface EditMessageResponse {
  message: ChatMessageWire;
  messages: ChatMessageWire[];
  deleted_message_ids: number[];
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
  // An edit lands in running: the chat's own worker may acquire it in the same transaction.
  const { value } = await ctx.worker.update(cmd.chatId, async (tx) => {
    assertOwner(tx.chat, cmd.callerId);
    const edited = await editMessage(tx, {
      messageId: cmd.messageId,
      content: prompt.parts,
      ...(cmd.modelConfigId === undefined ? {} : { modelConfigId: cmd.modelConfigId }),
      ...(cmd.reasoningEffort === undefined ? {} : { reasoningEffort: cmd.reasoningEffort }),
      createdBy: cmd.callerId,
    });
    // After the replacement, in the same queued round trip (the commit write's, at the latest).
    const context = await queueHistory(tx, prompt.context, HOOK_CONTEXT_REASON);
    await linkContentFiles(ctx, tx, content);
    return { edited, context };
  });
  const { edited, context } = value;
  return {
    message: messageToWire(edited.message),
    messages: [...edited.messages, ...context.rows].map((m) => messageToWire(m)),
    deleted_message_ids: edited.deletedMessageIds,
    warnings: [],
  };
}
