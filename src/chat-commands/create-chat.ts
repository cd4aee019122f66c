/**
 * POST /chats: Create. "N -> Create(initialMessages) -> R0"; an empty content array creates the
 * chat idle in W with the title "New Chat" (the spec's TODO #27111, built as the issue asks).
 */
import { chatToWire, NEW_CHAT, messageToWire, type ChatMessageWire, type ChatWire } from "../wire/chat-wire";
import type { ChatClientType, DynamicToolDefinition } from "../db/schema/chats";
import type { CommandContext } from "./context";
import { type ChatInputPart, linkContentFiles, resolveContent } from "./content";
import { checkModelChoice } from "./check-model-choice";
import { checkProjectChoice } from "./project-choice";
import { checkChatMcpServers } from "../mcp/servers";
import { submitPrompt } from "./prompt-hooks";
import { insertHistory } from "../chats/history";

export interface CreateChatCommand {
  chatId: string;
  callerId: string;
  organizationId: string;
  content: ChatInputPart[];
  title?: string | undefined;
  systemPrompt?: string | undefined;
  modelConfigId?: string | undefined;
  reasoningEffort?: string | undefined;
  labels?: Record<string, string> | undefined;
  unsafeDynamicTools?: DynamicToolDefinition[] | undefined;
  projectId?: string | undefined;
  mcpServerIds?: string[] | undefined;
  planMode?: boolean | undefined;
  clientType?: ChatClientType | undefined;
  parentChatId?: string | undefined;
}

export async function createChatCommand(
  ctx: CommandContext,
  cmd: CreateChatCommand,
): Promise<{ chat: ChatWire; messages: ChatMessageWire[] }> {
  await checkModelChoice(ctx, cmd.organizationId, cmd.modelConfigId);
  await checkProjectChoice(ctx, cmd);
  const mcpServerIds = await checkChatMcpServers(ctx.db, cmd.organizationId, cmd.mcpServerIds ?? []);
  const content = await resolveContent(ctx, cmd.content, { ownerId: cmd.callerId, organizationId: cmd.organizationId });
  const prompt = await submitPrompt(ctx, {
    chat: { id: cmd.chatId, organization_id: cmd.organizationId, owner_id: cmd.callerId, parent_chat_id: cmd.parentChatId ?? null },
    parts: content.parts,
    source: "create",
    trigger: [],
    sessionStart: true,
  });
  const created = await ctx.worker.create({
    id: cmd.chatId,
    organizationId: cmd.organizationId,
    ownerId: cmd.callerId,
    parentChatId: cmd.parentChatId ?? null,
    content: prompt.parts,
    title: cmd.title ?? null,
    systemPrompt: cmd.systemPrompt ?? null,
    modelConfigId: cmd.modelConfigId ?? null,
    reasoningEffort: cmd.reasoningEffort ?? null,
    labels: cmd.labels ?? {},
    unsafeDynamicTools: cmd.unsafeDynamicTools ?? null,
    projectId: cmd.projectId ?? null,
    mcpServerIds,
    planMode: cmd.planMode ?? false,
    clientType: cmd.clientType ?? "api",
    createdBy: cmd.callerId,
    afterInsert: async (tx) => {
      // Hook context goes right after the first prompt, in the creating transaction.
      if (prompt.context.length > 0) await insertHistory(tx, prompt.context, "a lifecycle hook added context");
      await linkContentFiles(ctx, tx, content);
    },
  });
  // A chat created running may have started its turn at COMMIT (ChatWorker.create). A chat created
  // with a prompt and without a title has its first prompt: its title call starts beside the turn.
  if (cmd.title === undefined) ctx.firstPrompt(created.chat, prompt.parts);
  return { chat: chatToWire(created.chat, NEW_CHAT), messages: created.value.messages.map((m) => messageToWire(m)) };
}
