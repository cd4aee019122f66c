/**
 * The endpoints that apply one transition and answer with the chat: interrupt, tool-results,
 * compact, clear, reconcile-invalid. Each is the owner check plus the transition, in one
 * transaction.
 */
import type { ChatTx, TailPrefetch } from "../db/chat-tx";
import { clearContext } from "../db/transitions/clear-context";
import { interrupt } from "../db/transitions/interrupt";
import { reconcileInvalidState } from "../db/transitions/reconcile-invalid-state";
import { requestCompaction } from "../db/transitions/request-compaction";
import { completeRequiresAction, type ToolResultInput } from "../db/transitions/requires-action";
import { type ChatWire, chatToWire } from "../db/wire";
import { assertOwner, type CommandContext } from "./context";

export interface ChatCommand {
  chatId: string;
  callerId: string;
}

async function applyToChat(
  ctx: CommandContext,
  cmd: ChatCommand,
  transition: (tx: ChatTx) => Promise<unknown>,
  prefetchTail: TailPrefetch = false,
): Promise<ChatWire> {
  const { chat } = await ctx.store.update(
    cmd.chatId,
    (tx) => {
      assertOwner(tx.chat, cmd.callerId);
      return transition(tx);
    },
    { prefetchTail },
  );
  return chatToWire(chat);
}

/** Interrupt(user_cancel), with FinishInterruption in the same transaction when no worker owns the chat. */
export const interruptCommand = (ctx: CommandContext, cmd: ChatCommand) =>
  applyToChat(ctx, cmd, (tx) => interrupt(tx), interrupt.prefetchTail);

export const submitToolResultsCommand = (ctx: CommandContext, cmd: ChatCommand & { results: ToolResultInput[] }) =>
  applyToChat(ctx, cmd, (tx) => completeRequiresAction(tx, { results: cmd.results, createdBy: cmd.callerId }), true);

/** RequestCompaction; "nothing to compact" is checked inside the same transaction. */
export const compactCommand = (ctx: CommandContext, cmd: ChatCommand) => applyToChat(ctx, cmd, (tx) => requestCompaction(tx));

/** ClearContext; "nothing to clear" is checked inside the same transaction. */
export const clearCommand = (ctx: CommandContext, cmd: ChatCommand) =>
  applyToChat(ctx, cmd, (tx) => clearContext(tx, { createdBy: cmd.callerId }), true);

export const reconcileCommand = (ctx: CommandContext, cmd: ChatCommand) => applyToChat(ctx, cmd, (tx) => reconcileInvalidState(tx), true);
