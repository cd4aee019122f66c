/**
 * The wire shape of model configs (docs/api.md "Model configs"), shared by the model-config routes and
 * model discovery.
 */
import { z } from "@hono/zod-openapi";
import { DEFAULT_COMPRESSION_THRESHOLD_PERCENT } from "../llm/compaction/trigger";
import type { ModelConfigRow } from "../model-configs/configs";
import { effortRank, REASONING_EFFORTS } from "../model-configs/options";
import { MAX_PRICE_MICROS, pricingOf } from "../model-configs/pricing";
import { AnthropicProviderOptionsSchema, OpenAIProviderOptionsSchema } from "../model-configs/web-search-options";

const effort = z.enum(REASONING_EFFORTS);

export const ModelConfigOptionsSchema = z
  .strictObject({
    reasoning_effort: z
      .strictObject({ default: effort, max: effort })
      .refine((r) => effortRank(r.default) <= effortRank(r.max), { error: "default must not exceed max", path: ["default"] })
      .optional(),
    openai_config: z.strictObject({ use_responses_api: z.boolean().optional() }).optional(),
    /**
     * Per provider key; `openai` and `anthropic` have their web search fields checked
     * (src/model-configs/web-search-options.ts), every other field passes through.
     */
    provider_options: z
      .object({ openai: OpenAIProviderOptionsSchema.optional(), anthropic: AnthropicProviderOptionsSchema.optional() })
      .catchall(z.unknown())
      .optional(),
  })
  .openapi("ChatModelConfigOptions");

const price = (what: string) =>
  z
    .number()
    .int({ error: "a price is a whole number of micro-dollars per million tokens" })
    .min(0, { error: "a price is never negative" })
    .max(MAX_PRICE_MICROS, { error: `a price is at most ${MAX_PRICE_MICROS} micro-dollars ($10,000) per million tokens` })
    .openapi({ description: `${what}, in micro-dollars per million tokens ($3 per million is 3000000)` });

/** A model config's prices (docs/usage-cost.md); a step is priced with them when it is committed. */
export const ModelPricingSchema = z
  .strictObject({
    input_micros_per_million_tokens: price("Input tokens that were not read from the cache"),
    output_micros_per_million_tokens: price("Output tokens other than reasoning"),
    cached_input_micros_per_million_tokens: price("Input tokens read from the provider's cache; null: the input price")
      .nullable()
      .default(null),
    reasoning_micros_per_million_tokens: price("Reasoning tokens; null: the output price").nullable().default(null),
  })
  .openapi("ChatModelPricing");

export const ModelConfigSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    provider_id: z.uuid(),
    model: z.string(),
    display_name: z.string(),
    enabled: z.boolean(),
    is_default: z.boolean(),
    context_limit: z.number().int().nullable(),
    compression_threshold: z.number().int().nullable(),
    options: ModelConfigOptionsSchema,
    /** Null: unpriced; its steps count as unpriced in cost reads. */
    pricing: ModelPricingSchema.nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .openapi("ChatModelConfig");

/** Tokens the model accepts in one request. Large enough for any model of today. */
const MAX_CONTEXT_LIMIT = 100_000_000;

const fields = {
  provider_id: z.uuid(),
  model: z.string().trim().min(1).max(256),
  display_name: z.string().trim().min(1).max(256),
  enabled: z.boolean(),
  is_default: z.boolean(),
  context_limit: z.number().int().min(1).max(MAX_CONTEXT_LIMIT).nullable(),
  /** Percent of the context window at which a chat is compacted. */
  compression_threshold: z.number().int().min(0).max(100).nullable(),
  options: ModelConfigOptionsSchema,
  /** Replaced whole; null removes the prices. */
  pricing: ModelPricingSchema.nullable(),
};

export const CreateModelConfigBody = z
  .object({
    provider_id: fields.provider_id,
    model: fields.model,
    display_name: fields.display_name.optional(),
    enabled: fields.enabled.optional(),
    is_default: fields.is_default.optional(),
    context_limit: fields.context_limit.optional(),
    compression_threshold: fields.compression_threshold.optional(),
    options: fields.options.optional(),
    pricing: fields.pricing.optional(),
  })
  .openapi("CreateChatModelConfigRequest");

export const UpdateModelConfigBody = z
  .object({
    provider_id: fields.provider_id.optional(),
    model: fields.model.optional(),
    display_name: fields.display_name.optional(),
    enabled: fields.enabled.optional(),
    is_default: fields.is_default.optional(),
    context_limit: fields.context_limit.optional(),
    compression_threshold: fields.compression_threshold.optional(),
    options: fields.options.optional(),
    pricing: fields.pricing.optional(),
  })
  .openapi("UpdateChatModelConfigRequest");

export const OrgParams = z.object({ organization: z.uuid() });
export const ConfigParams = z.object({ organization: z.uuid(), id: z.uuid() });

/**
 * A provider as `GET .../chats/models` shows it: Coder's redacted descriptor
 * (`ChatModelProviderDescriptor`) plus this service's `name`. No keys, endpoints or headers.
 * There are no per-user keys here, so the user-key fields are false and the effective key is the
 * provider's own.
 */
export const ProviderDescriptorSchema = z
  .object({
    id: z.uuid(),
    type: z.string(),
    name: z.string(),
    display_name: z.string(),
    icon: z.string(),
    enabled: z.boolean(),
    has_api_key: z.boolean(),
    has_user_api_key: z.boolean(),
    has_effective_api_key: z.boolean(),
    allow_user_api_key: z.boolean(),
    available: z.boolean(),
    /** Why an enabled provider cannot serve requests, in Coder's words, when one of them fits. */
    unavailable_reason: z.enum(["missing_api_key"]).optional(),
  })
  .openapi("ChatModelProvider");

/** A configured provider whose type this build cannot serve (Coder's `ChatUnsupportedProvider`). */
export const UnsupportedProviderSchema = z.object({ provider: z.string(), display_name: z.string() }).openapi("ChatUnsupportedProvider");

/**
 * A model config as `GET .../chats/models` lists it: the config plus the fields of Coder's
 * `ChatModel` that it names differently (`ai_provider_id` is `provider_id`, `model_config` is
 * `options`) and the efforts a user may pick, up to the config's maximum. `context_limit` and
 * `compression_threshold` are numbers, as Coder's types say: the values a turn works with when the
 * config leaves them unset (0: an unknown window; the default threshold).
 */
export const ChatModelSchema = ModelConfigSchema.extend({
  context_limit: z.number().int().openapi({ description: "Tokens in the model's window; 0 when the config does not know it" }),
  compression_threshold: z
    .number()
    .int()
    .openapi({
      description: `Percent of the window at which a chat is compacted; the default ${DEFAULT_COMPRESSION_THRESHOLD_PERCENT} when the config leaves it unset`,
    }),
  ai_provider_id: z.uuid(),
  model_config: ModelConfigOptionsSchema,
  reasoning_efforts: z.array(effort),
}).openapi("ChatModel");

/** Coder's `OrganizationChatModelsResponse`. */
export const ModelsSchema = z
  .object({
    models: z.array(ChatModelSchema),
    providers: z.array(ProviderDescriptorSchema),
    unsupported_providers: z.array(UnsupportedProviderSchema),
  })
  .openapi("ChatModelsResponse");

export type ModelConfigJson = z.infer<typeof ModelConfigSchema>;
export type ChatModelJson = z.infer<typeof ChatModelSchema>;

export function modelConfigJson(row: ModelConfigRow): ModelConfigJson {
  return {
    id: row.id,
    organization_id: row.organizationId,
    provider_id: row.providerId,
    model: row.model,
    display_name: row.displayName ?? row.model,
    enabled: row.enabled,
    is_default: row.isDefault,
    context_limit: row.contextLimit,
    compression_threshold: row.compressionThreshold,
    options: row.options,
    pricing: pricingOf(row),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** A config as the models listing shows it (ChatModelSchema). */
export function chatModelJson(row: ModelConfigRow): ChatModelJson {
  const config = modelConfigJson(row);
  const max = config.options.reasoning_effort?.max;
  return {
    ...config,
    // An unknown window is 0, Go's zero value for Coder's int64 (no chat trigger compacts then).
    context_limit: config.context_limit ?? 0,
    compression_threshold: config.compression_threshold ?? DEFAULT_COMPRESSION_THRESHOLD_PERCENT,
    ai_provider_id: config.provider_id,
    model_config: config.options,
    reasoning_efforts: max === undefined ? [] : REASONING_EFFORTS.filter((e) => effortRank(e) <= effortRank(max)),
  };
}
