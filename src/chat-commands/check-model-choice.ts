/**
 * "Chat creation, message sends, and message edits reject an explicit config that is disabled,
 * unavailable to the caller, or belongs to another organization." Without an explicit config
 * nothing is checked here: the worker resolves the organization's default when it generates.
 */
import { resolveModelConfig } from "../model-configs/resolve";
import type { CommandContext } from "./context";

export async function checkModelChoice(
  ctx: CommandContext,
  organizationId: string,
  modelConfigId: string | null | undefined,
): Promise<void> {
  if (modelConfigId === undefined || modelConfigId === null) return;
  await resolveModelConfig(ctx.db, { organizationId, modelConfigId });
}
