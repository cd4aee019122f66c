/**
 * "Chat creation, message sends, and message edits reject an explicit config that is disabled,
 * unavailable to the caller, or belongs to another organization." Without an explicit config
 * nothing is checked here: the worker resolves the organization's default when it generates.
 */
import { resolveModelConfig } from "../db/model-configs/resolve";
import { assertOwner, type CommandContext } from "./context";

export async function checkModelChoice(
  ctx: CommandContext,
  organizationId: string,
  modelConfigId: string | null | undefined,
): Promise<void> {
  if (modelConfigId === undefined || modelConfigId === null) return;
  await resolveModelConfig(ctx.db, { organizationId, modelConfigId });
}

/** The same check for an existing chat: its organization never changes, so a read outside the transition is safe. */
export async function checkModelChoiceForChat(
  ctx: CommandContext,
  chatId: string,
  callerId: string,
  modelConfigId: string | null | undefined,
): Promise<void> {
  if (modelConfigId === undefined || modelConfigId === null) return;
  const { rows } = await ctx.store.pool.query<{ organization_id: string; owner_id: string }>(
    "SELECT organization_id, owner_id FROM chats WHERE id = $1",
    [chatId],
  );
  const row = rows[0];
  assertOwner({ id: chatId, ownerId: row?.owner_id ?? "" }, callerId);
  await checkModelChoice(ctx, (row as { organization_id: string }).organization_id, modelConfigId);
}
