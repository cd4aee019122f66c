/**
 * spawn_agent's decisions before any child exists: the explicit arguments checked (an invalid
 * one is a tool error and nothing is created), the model and effort resolved through the spec's
 * precedence, the child's id derived from the call so a re-run call finds the child it made.
 */
import type { Database } from "../db/database";
import { ModelConfigUnavailableError } from "../model-configs/errors";
import type { ReasoningEffort } from "../model-configs/options";
import { and, eq } from "drizzle-orm";
import { checkedModelConfig, isUsableConfig, readJoinedConfigs } from "../model-configs/resolve";
import { chats } from "../db/schema/chats";
import { chatOrganizationModelOverrides } from "../db/schema/compaction";
import { chatUserModelOverrides, type SubagentContext } from "../db/schema/subagents";
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

/** The parent's last model and effort with the personal and organization overrides for `type`: one read. */
async function readSelectionRows(db: Database, request: SpawnRequest) {
  const { organizationId, ownerId, type } = request;
  const [row] = await db
    .select({
      lastModelConfigId: chats.lastModelConfigId,
      lastReasoningEffort: chats.lastReasoningEffort,
      personal: chatUserModelOverrides,
      organizationModelConfigId: chatOrganizationModelOverrides.modelConfigId,
    })
    .from(chats)
    .leftJoin(
      chatUserModelOverrides,
      and(
        eq(chatUserModelOverrides.userId, ownerId),
        eq(chatUserModelOverrides.organizationId, organizationId),
        eq(chatUserModelOverrides.context, type),
      ),
    )
    .leftJoin(
      chatOrganizationModelOverrides,
      and(eq(chatOrganizationModelOverrides.organizationId, organizationId), eq(chatOrganizationModelOverrides.context, type)),
    )
    .where(eq(chats.id, request.parentId));
  return row;
}

/**
 * Two reads on one connection: the precedence's rows, then the explicit config and every candidate
 * at once (side by side, the reads would open connections on a pool with fewer idle ones).
 */
export async function selectChildModel(db: Database, request: SpawnRequest): Promise<SubagentModelSelection> {
  const { organizationId, modelConfigId: explicit } = request;
  const parent = await readSelectionRows(db, request);
  if (!parent) throw new Error("the parent chat no longer exists");
  const personalRow = parent.personal;
  const personal: PersonalOverride | null = personalRow && {
    mode: personalRow.mode,
    modelConfigId: personalRow.modelConfigId,
    reasoningEffort: isReasoningEffort(personalRow.reasoningEffort) ? personalRow.reasoningEffort : null,
  };
  const organizationModel = parent.organizationModelConfigId;
  const candidates = [personal?.mode === "model" ? personal.modelConfigId : null, organizationModel, parent.lastModelConfigId].filter(
    (id): id is string => id !== null,
  );
  const configs = await readJoinedConfigs(db, explicit === undefined ? candidates : [explicit, ...candidates]);
  if (explicit !== undefined) {
    try {
      checkedModelConfig(
        { organizationId, modelConfigId: explicit },
        configs.find((found) => found.config.id === explicit),
      );
    } catch (err) {
      if (err instanceof ModelConfigUnavailableError) throw new SpawnArgumentError(`model_config_id: ${err.message}`);
      throw err;
    }
  }
  const usable = new Set(configs.filter((found) => isUsableConfig(found, organizationId)).map((found) => found.config.id));
  return resolveSubagentModel({
    explicit: { modelConfigId: request.modelConfigId, reasoningEffort: request.reasoningEffort },
    personal,
    organization: organizationModel === null ? null : { modelConfigId: organizationModel },
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
