/** The wire shape of organization model overrides (`.../chats/model-overrides/{context}`), for the route and the SDK. */
import { z } from "@hono/zod-openapi";

/** compaction: the summary model; general, explore: the subagent types (docs/subagents.md). */
export const MODEL_OVERRIDE_CONTEXTS = ["compaction", "general", "explore"] as const;

export const ModelOverrideParams = z.object({ organization: z.uuid(), context: z.enum(MODEL_OVERRIDE_CONTEXTS) });

export const ModelOverrideSchema = z
  .object({
    organization_id: z.uuid(),
    context: z.string(),
    model_config_id: z.uuid(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .openapi("ChatModelOverride");

export const PutModelOverrideBody = z.strictObject({ model_config_id: z.uuid() }).openapi("PutChatModelOverrideRequest");
