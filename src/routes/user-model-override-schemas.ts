/**
 * The wire shape of the caller's personal subagent model overrides
 * (`/users/me/chats/model-overrides/{context}?organization=`), for the route and the SDK.
 */
import { z } from "@hono/zod-openapi";
import { REASONING_EFFORTS } from "../model-configs/options";
import { PERSONAL_OVERRIDE_MODES, SUBAGENT_CONTEXTS } from "../db/schema/subagents";

export const UserModelOverrideParams = z.object({ context: z.enum(SUBAGENT_CONTEXTS) });
export const UserModelOverrideQuery = z.object({ organization: z.uuid() });

export const UserModelOverrideSchema = z
  .object({
    organization_id: z.uuid(),
    context: z.enum(SUBAGENT_CONTEXTS),
    mode: z.enum(PERSONAL_OVERRIDE_MODES),
    model_config_id: z.uuid().nullable(),
    reasoning_effort: z.enum(REASONING_EFFORTS).nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .openapi("ChatUserModelOverride");

/** `model` names a config (and may name an effort); the other modes name neither. */
export const PutUserModelOverrideBody = z
  .discriminatedUnion("mode", [
    z.strictObject({ mode: z.literal("chat_default") }),
    z.strictObject({ mode: z.literal("deployment_default") }),
    z.strictObject({
      mode: z.literal("model"),
      model_config_id: z.uuid(),
      reasoning_effort: z.enum(REASONING_EFFORTS).nullable().optional(),
    }),
  ])
  .openapi("PutChatUserModelOverrideRequest");
