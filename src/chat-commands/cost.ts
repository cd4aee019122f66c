/**
 * GET /chats/{chat}/cost: what the chat and its subagents cost, by model and by turn, for its owner
 * (docs/usage-cost.md). Read from Postgres on the object's pool; another user's chat answers as a
 * missing one.
 */
import { readChatCost } from "../chats/cost";
import type { ChatCostWire } from "../wire/cost-wire";
import { type ChatCommand, type CommandContext, ownedBy } from "./context";

export interface ChatCostCommand extends ChatCommand {
  /** How many of the chat's newest turns to list. */
  turnLimit: number;
}

export async function chatCostCommand(ctx: CommandContext, cmd: ChatCostCommand): Promise<ChatCostWire> {
  ownedBy(await ctx.store.chat(cmd.chatId), cmd);
  return readChatCost(ctx.store.pool, cmd.chatId, { turnLimit: cmd.turnLimit });
}
