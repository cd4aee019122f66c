/**
 * The wire shape of model configs (docs/api.md "Model configs"), shared by the model-config routes and
 * model discovery.
 */
import { z } from "@hono/zod-openapi";
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

export const ProviderDescriptorSchema = z
  .object({ id: z.uuid(), type: z.string(), name: z.string(), enabled: z.boolean(), available: z.boolean() })
  .openapi("ChatModelProvider");

export const ModelsSchema = z
  .object({
    configs: z.array(ModelConfigSchema),
    providers: z.array(ProviderDescriptorSchema),
    unsupported_provider_types: z.array(z.string()),
  })
  .openapi("ChatModelsResponse");

export type ModelConfigJson = z.infer<typeof ModelConfigSchema>;

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
