/**
 * GET /chats/{chat}/prompts: the owner's prompt history of the chat, newest first
 * (src/chats/prompts.ts). Another user's chat answers as a missing one.
 */
import { type ChatPrompt, readChatPrompts } from "../chats/prompts";
import { type ChatCommand, type CommandContext, ownedBy } from "./context";

export interface PromptsCommand extends ChatCommand {
  limit: number;
}

export async function chatPromptsCommand(ctx: CommandContext, cmd: PromptsCommand): Promise<{ prompts: ChatPrompt[] }> {
  const read = await readChatPrompts(ctx.store.pool, cmd.chatId, cmd.limit);
  ownedBy(read, cmd);
  return { prompts: read!.prompts };
}
