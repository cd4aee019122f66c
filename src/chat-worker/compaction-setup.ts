/**
 * Compaction's share of generation preparation (spec "Compaction model selection"): the owner's
 * personal threshold, the organization's compaction override, and the triggers they give.
 *
 * Failure semantics: an override whose config was deleted or disabled, or whose provider is
 * disabled or lacks credentials, is logged and ignored (the chat model summarizes and only the
 * chat trigger remains). A failure to read the rows stops preparation (the error propagates). The
 * override's model client is not built here: a broken override must not fail a turn that does not
 * compact.
 */
import { getChatPreferences } from "../chats/chat-preferences";
import type { Database } from "../db/database";
import { ModelConfigUnavailableError } from "../model-configs/errors";
import { checkedModelConfig, readJoinedConfig, type ResolvedModelConfig } from "../model-configs/resolve";
import { getModelOverride } from "../model-configs/model-overrides";
import type { CompactionRows } from "../model-configs/turn-model-rows";
import type { ChatRow } from "../db/schema/chats";
import { type CompactionTriggers, compactionTriggers } from "../llm/compaction/trigger";
import { logger } from "../log/log";

export interface CompactionSetup {
  chatModel: ResolvedModelConfig;
  /** The usable compaction override; null: the chat model writes the summary. */
  override: ResolvedModelConfig | null;
  triggers: CompactionTriggers;
}

/** `rows`: the owner's threshold and the override as the statement that read `chat` read them; without them, they are read now. */
export async function compactionSetup(
  db: Database,
  chat: Pick<ChatRow, "id" | "organizationId" | "ownerId">,
  chatModel: ResolvedModelConfig,
  rows?: CompactionRows,
): Promise<CompactionSetup> {
  const { ownerThresholdPercent, override: overrideRow } = rows ?? (await readCompactionRows(db, chat));
  let override: ResolvedModelConfig | null = null;
  if (overrideRow !== null) {
    const request = { organizationId: chat.organizationId, modelConfigId: overrideRow.modelConfigId };
    try {
      override = checkedModelConfig(request, overrideRow.joined);
    } catch (err) {
      if (!(err instanceof ModelConfigUnavailableError)) throw err;
      logger.warn("compaction_override_unusable", {
        chat_id: chat.id,
        organization_id: chat.organizationId,
        model_config_id: overrideRow.modelConfigId,
        reason: err.reason,
        fallback: "chat_model",
      });
    }
  }
  const triggers = compactionTriggers({
    chatModel: { contextLimit: chatModel.config.contextLimit, compressionThreshold: chatModel.config.compressionThreshold },
    ownerThresholdPercent,
    override: override === null ? null : { contextLimit: override.config.contextLimit },
  });
  return { chatModel, override, triggers };
}

/** The rows, when no statement about the chat read them. */
async function readCompactionRows(db: Database, chat: Pick<ChatRow, "organizationId" | "ownerId">): Promise<CompactionRows> {
  const [prefs, overrideRow] = await Promise.all([
    getChatPreferences(db, chat.ownerId),
    getModelOverride(db, chat.organizationId, "compaction"),
  ]);
  if (overrideRow === null) return { ownerThresholdPercent: prefs.compactionThresholdPercent, override: null };
  const joined = await readJoinedConfig(db, overrideRow.modelConfigId);
  return { ownerThresholdPercent: prefs.compactionThresholdPercent, override: { modelConfigId: overrideRow.modelConfigId, joined } };
}
