/**
 * The checks a send or an edit makes before its transition: the model config and the file parts
 * are the caller's to use in the chat's organization. They need the chat's owner and organization,
 * which never change, so reading them outside the transition is safe; a text-only message with no
 * explicit model reads nothing.
 */
import { type ChatInputPart, type ResolvedContent, resolveContent } from "./content";
import { type CommandContext, ownedBy } from "./context";
import { checkModelChoice } from "./check-model-choice";

export async function prepareMessage(
  ctx: CommandContext,
  chat: { chatId: string; callerId: string },
  content: readonly ChatInputPart[],
  modelConfigId: string | undefined,
): Promise<ResolvedContent> {
  const hasFiles = content.some((p) => p.type === "file");
  if (modelConfigId === undefined && !hasFiles) return resolveContent(ctx, content, { ownerId: chat.callerId, organizationId: "" });
  const { organizationId } = ownedBy(await ctx.store.identity(chat.chatId), chat);
  await checkModelChoice(ctx, organizationId, modelConfigId);
  return resolveContent(ctx, content, { ownerId: chat.callerId, organizationId });
}
