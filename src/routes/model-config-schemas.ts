/**
 * The wire shape of model configs (docs/api.md "Model configs"), shared by the model-config routes and
 * model discovery.
 */
import { z } from "@hono/zod-openapi";
import type { ModelConfigRow } from "../db/model-configs/configs";
import { effortRank, REASONING_EFFORTS } from "../db/model-configs/options";

const effort = z.enum(REASONING_EFFORTS);

export const ModelConfigOptionsSchema = z
  .strictObject({
    reasoning_effort: z
      .strictObject({ default: effort, max: effort })
      .refine((r) => effortRank(r.default) <= effortRank(r.max), { error: "default must not exceed max", path: ["default"] })
      .optional(),
    openai_config: z.strictObject({ use_responses_api: z.boolean().optional() }).optional(),
    provider_options: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("ChatModelConfigOptions");

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
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .openapi("ChatModelConfig");

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
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
