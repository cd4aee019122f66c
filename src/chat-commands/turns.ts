/**
 * GET /chats/{chat}/turns: the chat's last turns with their stages, for its owner. The object's
 * tracer keeps them (src/observability/object-tracing.ts), so the command reads them through its
 * context rather than from Postgres; the chat row only answers whether the caller may see them.
 */
import type { TurnSummary } from "../observability/turn-tracing";
import { type CommandContext, ownedBy } from "./context";
import type { ChatCommand } from "./context";

export interface TurnsCommand extends ChatCommand {
  limit: number;
}

export async function turnsCommand(ctx: CommandContext, cmd: TurnsCommand): Promise<TurnSummary[]> {
  ownedBy(await ctx.store.chat(cmd.chatId), cmd);
  return ctx.latestTurns(cmd.limit);
}
