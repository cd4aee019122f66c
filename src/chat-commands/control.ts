/**
 * The endpoints that apply one transition and answer with the chat: interrupt, tool-results,
 * compact, clear, reconcile-invalid. Each is the owner check plus the transition, in one
 * transaction.
 */
import { clearContext } from "../chats/transitions/clear-context";
import { interrupt } from "../chats/transitions/interrupt";
import { reconcileInvalidState } from "../chats/transitions/reconcile-invalid-state";
import { requestCompaction } from "../chats/transitions/request-compaction";
import { completeRequiresAction, type ToolResultInput } from "../chats/transitions/requires-action";
import { prefetchFor, type Transition } from "../chats/lock-prefetch";
import { readChatView } from "../chats/chat-views";
import { type ChatWire, chatToWire, NEW_CHAT } from "../wire/chat-wire";
import { assertOwner, type ChatCommand, type CommandContext } from "./context";

async function applyToChat<I>(ctx: CommandContext, cmd: ChatCommand, transition: Transition<I, unknown>, input: I): Promise<ChatWire> {
  const { chat } = await ctx.store.update(
    cmd.chatId,
    (tx) => {
      assertOwner(tx.chat, cmd.callerId);
      return transition(tx, input);
    },
    { prefetchTail: prefetchFor(transition, input) },
  );
  // The chat as GET answers it: its unread flag and subagents are read after the commit.
  const view = await readChatView(ctx.store.pool, chat.id);
  return chatToWire(chat, view ?? NEW_CHAT);
}

/** Interrupt(user_cancel), with FinishInterruption in the same transaction when no worker owns the chat. */
export const interruptCommand = (ctx: CommandContext, cmd: ChatCommand) => applyToChat(ctx, cmd, interrupt, {});

export const submitToolResultsCommand = (ctx: CommandContext, cmd: ChatCommand & { results: ToolResultInput[] }) =>
  applyToChat(ctx, cmd, completeRequiresAction, { results: cmd.results, createdBy: cmd.callerId });

/** RequestCompaction; "nothing to compact" is checked inside the same transaction. */
export const compactCommand = (ctx: CommandContext, cmd: ChatCommand) => applyToChat(ctx, cmd, requestCompaction, {});

/** ClearContext; "nothing to clear" is checked inside the same transaction. */
export const clearCommand = (ctx: CommandContext, cmd: ChatCommand) => applyToChat(ctx, cmd, clearContext, { createdBy: cmd.callerId });

export const reconcileCommand = (ctx: CommandContext, cmd: ChatCommand) => applyToChat(ctx, cmd, reconcileInvalidState, undefined);
