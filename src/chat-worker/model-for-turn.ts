/**
 * Which model a turn runs on: "Worker generation preparation revalidates ... When those checks make
 * the stored model unavailable, the path selects that organization's enabled default. If no local
 * default is available, processing fails with ErrNoDefaultChatModelConfig; it never falls back to
 * another organization's model."
 */
import type { Database } from "../db/database";
import { ModelConfigUnavailableError } from "../model-configs/errors";
import {
  checkedModelConfig,
  type Joined,
  type ModelConfigRequest,
  type ResolvedModelConfig,
  resolveModelConfig,
} from "../model-configs/resolve";
import type { TurnModelRows } from "../model-configs/turn-model-rows";
import type { ChatRow } from "../db/schema/chats";

/** `rows`: the candidates as the statement that read `chat` read them; without them, they are read now. */
export async function modelForTurn(
  db: Database,
  chat: Pick<ChatRow, "organizationId" | "lastModelConfigId">,
  rows?: TurnModelRows,
): Promise<ResolvedModelConfig> {
  const resolve = async (request: ModelConfigRequest, read: Joined | undefined) =>
    rows ? checkedModelConfig(request, read) : resolveModelConfig(db, request);
  if (chat.lastModelConfigId) {
    try {
      return await resolve({ organizationId: chat.organizationId, modelConfigId: chat.lastModelConfigId }, rows?.chosen);
    } catch (err) {
      if (!(err instanceof ModelConfigUnavailableError)) throw err;
    }
  }
  return resolve({ organizationId: chat.organizationId }, rows?.fallback);
}
