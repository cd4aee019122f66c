/**
 * The provider wire shapes of api.md ("Providers") as zod schemas: the routes validate with them,
 * the OpenAPI document and the client SDK's types come from them.
 */
import { z } from "@hono/zod-openapi";
import { PROVIDER_TYPES } from "../model-configs/providers";

export const ProviderSchema = z
  .object({
    id: z.uuid(),
    type: z.enum(PROVIDER_TYPES),
    name: z.string(),
    base_url: z.string().nullable(),
    enabled: z.boolean(),
    has_api_key: z.boolean(),
  })
  .openapi("ChatProvider");

const name = z.string().trim().min(1).max(64);
const baseUrl = z.url({ protocol: /^https?$/, error: "an http(s) URL" }).max(2048);
const apiKey = z.string().min(1).max(8192);

export const CreateProviderBody = z
  .object({ type: z.enum(PROVIDER_TYPES), name, base_url: baseUrl.optional(), api_key: apiKey.optional(), enabled: z.boolean().optional() })
  .superRefine((v, ctx) => {
    // There is no default endpoint for "any OpenAI-compatible server".
    if (v.type === "openai-compatible" && !v.base_url)
      ctx.addIssue({ code: "custom", path: ["base_url"], message: "required for openai-compatible providers" });
  })
  .openapi("CreateChatProviderRequest");

export const UpdateProviderBody = z
  .object({
    name: name.optional(),
    base_url: baseUrl.nullable().optional(),
    api_key: apiKey.nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .openapi("UpdateChatProviderRequest");

export const IdParams = z.object({ id: z.uuid() });
