/**
 * spawn_agent's decisions before any child exists: the explicit arguments checked (an invalid
 * one is a tool error and nothing is created), the model and effort resolved through the spec's
 * precedence, the child's id derived from the call so a re-run call finds the child it made.
 */
import type { Database } from "../db/database";
import { ModelConfigUnavailableError } from "../model-configs/errors";
import type { ReasoningEffort } from "../model-configs/options";
import { resolveModelConfig } from "../model-configs/resolve";
import { getModelOverride } from "../model-configs/model-overrides";
import { getChat } from "../chats/queries";
import type { Queryable } from "../db/rows";
import type { SubagentContext } from "../db/schema/subagents";
import { getPersonalOverride } from "../model-configs/user-model-overrides";
import { isReasoningEffort } from "../llm/provider-options";
import { type PersonalOverride, resolveSubagentModel, type SubagentModelSelection } from "./model-resolution";

export interface SpawnRequest {
  parentId: string;
  organizationId: string;
  ownerId: string;
  type: SubagentContext;
  modelConfigId?: string | undefined;
  reasoningEffort?: ReasoningEffort | undefined;
}

/** Thrown for an explicit argument that cannot be used; the model reads the message. */
export class SpawnArgumentError extends Error {
  override name = "SpawnArgumentError";
}

async function usableConfig(db: Database, organizationId: string, modelConfigId: string): Promise<boolean> {
  try {
    await resolveModelConfig(db, { organizationId, modelConfigId });
    return true;
  } catch (err) {
    if (err instanceof ModelConfigUnavailableError) return false;
    throw err;
  }
}

export async function selectChildModel(db: Database, pool: Queryable, request: SpawnRequest): Promise<SubagentModelSelection> {
  const { organizationId } = request;
  if (request.modelConfigId !== undefined) {
    try {
      await resolveModelConfig(db, { organizationId, modelConfigId: request.modelConfigId });
    } catch (err) {
      if (err instanceof ModelConfigUnavailableError) throw new SpawnArgumentError(`model_config_id: ${err.message}`);
      throw err;
    }
  }
  const [parent, personalRow, organizationRow] = await Promise.all([
    getChat(pool, request.parentId),
    getPersonalOverride(db, { userId: request.ownerId, organizationId, context: request.type }),
    getModelOverride(db, organizationId, request.type),
  ]);
  if (!parent) throw new Error("the parent chat no longer exists");
  const personal: PersonalOverride | null = personalRow && {
    mode: personalRow.mode,
    modelConfigId: personalRow.modelConfigId,
    reasoningEffort: isReasoningEffort(personalRow.reasoningEffort) ? personalRow.reasoningEffort : null,
  };
  const candidates = [
    personal?.mode === "model" ? personal.modelConfigId : null,
    organizationRow?.modelConfigId ?? null,
    parent.lastModelConfigId,
  ].filter((id): id is string => id !== null);
  const usable = new Set<string>();
  await Promise.all(
    candidates.map(async (id) => {
      if (await usableConfig(db, organizationId, id)) usable.add(id);
    }),
  );
  return resolveSubagentModel({
    explicit: { modelConfigId: request.modelConfigId, reasoningEffort: request.reasoningEffort },
    personal,
    organization: organizationRow && { modelConfigId: organizationRow.modelConfigId },
    parent: {
      modelConfigId: parent.lastModelConfigId,
      reasoningEffort: isReasoningEffort(parent.lastReasoningEffort) ? parent.lastReasoningEffort : null,
    },
    usable: (id) => usable.has(id),
  });
}

/**
 * The child's id: a UUID derived from the parent and the tool call. Tool calls run at least once;
 * a re-run of the same call (after a crash before its result was committed) creates nothing new,
 * it finds the child the first run made (Create refuses a taken id).
 */
export async function childIdFor(parentId: string, toolCallId: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`subagent:${parentId}:${toolCallId}`)));
  const bytes = digest.slice(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80; // version 8 (custom)
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // RFC 4122 variant
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
