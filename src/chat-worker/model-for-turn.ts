/**
 * Which model a turn runs on: "Worker generation preparation revalidates ... When those checks make
 * the stored model unavailable, the path selects that organization's enabled default. If no local
 * default is available, processing fails with ErrNoDefaultChatModelConfig; it never falls back to
 * another organization's model."
 */
import type { Database } from "../db/database";
import { ModelConfigUnavailableError } from "../model-configs/errors";
import { type ResolvedModelConfig, resolveModelConfig } from "../model-configs/resolve";
import type { ChatRow } from "../db/schema/chats";

export async function modelForTurn(
  db: Database,
  chat: Pick<ChatRow, "organizationId" | "lastModelConfigId">,
): Promise<ResolvedModelConfig> {
  if (chat.lastModelConfigId) {
    try {
      return await resolveModelConfig(db, { organizationId: chat.organizationId, modelConfigId: chat.lastModelConfigId });
    } catch (err) {
      if (!(err instanceof ModelConfigUnavailableError)) throw err;
    }
  }
  return resolveModelConfig(db, { organizationId: chat.organizationId });
}
