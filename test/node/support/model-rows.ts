/**
 * Rows the model-call tests build without a database: a provider pointed at the fake model, a
 * model config on it, and a history row. Each takes only what its test cares about.
 */
import { inject } from "vitest";
import type { ModelConfigRow } from "../../../src/model-configs/configs";
import type { ProviderRow } from "../../../src/model-configs/providers";
import type { ChatMessageRow } from "../../../src/db/schema/chats";

/** A provider of `type` at the fake model's OpenAI/Anthropic-compatible base URL. */
export function fakeProvider(fields: Partial<ProviderRow> = {}): ProviderRow {
  const now = new Date();
  const type = fields.type ?? "openai-compatible";
  return {
    id: crypto.randomUUID(),
    type,
    name: type,
    baseUrl: `${inject("fakeModelUrl")}/v1`,
    apiKey: "x",
    // In the clear, as the model client gets it (provider-secrets.ts opens it first).
    apiKeySealedWith: null,
    enabled: true,
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
}

/** An enabled default config of `provider` for the model id `fake` unless told otherwise. */
export function modelConfigRow(provider: Pick<ProviderRow, "id">, fields: Partial<ModelConfigRow> = {}): ModelConfigRow {
  const now = new Date();
  return {
    id: crypto.randomUUID(),
    organizationId: crypto.randomUUID(),
    providerId: provider.id,
    model: "fake",
    displayName: null,
    enabled: true,
    isDefault: true,
    contextLimit: null,
    compressionThreshold: null,
    options: {},
    inputPriceMicros: null,
    outputPriceMicros: null,
    cachedInputPriceMicros: null,
    reasoningPriceMicros: null,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
}

/** A committed, visible history row. */
export function messageRow(role: ChatMessageRow["role"], content: ChatMessageRow["content"], id = 1): ChatMessageRow {
  return {
    id,
    chatId: "chat",
    role,
    content,
    revision: id,
    queuedMessageId: null,
    modelConfigId: null,
    reasoningEffort: null,
    createdBy: null,
    deleted: false,
    modelOnly: false,
    compressed: false,
    usage: null,
    costUsd: null,
    createdAt: new Date(),
  };
}
