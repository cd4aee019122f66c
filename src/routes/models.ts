/**
 * `GET /organizations/{org}/chats/models` (spec "Organization-scoped model discovery"), in the
 * shape of Coder's `OrganizationChatModelsResponse`: the organization's live model configs
 * (`models`), every provider as a redacted descriptor with its availability (never credentials or
 * endpoints), and the configured providers this build cannot serve (`unsupported_providers`).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { listModelConfigs } from "../model-configs/configs";
import { isProviderAvailable, isSupportedProviderType, listProviders, type ProviderRow } from "../model-configs/providers";
import { requireModelConfigReader } from "../http/auth";
import { requireOrganization } from "../http/org-access";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses } from "../http/router";
import { chatModelJson, ModelsSchema } from "./model-config-schemas";

const route = createRoute({
  method: "get",
  path: "/{organization}/chats/models",
  summary: "Models a member of the organization can choose from (a model-configuration read token too)",
  middleware: [requestDb, requireModelConfigReader],
  request: { params: z.object({ organization: z.uuid() }) },
  responses: {
    200: {
      description: "Models, redacted providers and unsupported providers",
      content: { "application/json": { schema: ModelsSchema } },
    },
    ...errorResponses(400, 401, 404),
  },
});

export const models = createRouter().openapi(route, async (c) => {
  const { organization } = c.req.valid("param");
  await requireOrganization(c, organization, "member");
  // Lists that may lag by the cached Hyperdrive config's max-age (src/http/request-db.ts); the access check above did not.
  const db = c.var.cachedDb;
  // One after the other: side by side, the second read would open a second connection on the request's pool.
  const configs = await listModelConfigs(db, organization);
  const providers = await listProviders(db);
  return c.json(
    {
      models: configs.map(chatModelJson),
      providers: providers.map(providerDescriptor),
      unsupported_providers: providers
        .filter((p) => !isSupportedProviderType(p.type))
        .map((p) => ({ provider: p.type, display_name: p.name }))
        .sort((a, b) => a.provider.localeCompare(b.provider) || a.display_name.localeCompare(b.display_name)),
    },
    200,
  );
});

function providerDescriptor(p: ProviderRow) {
  const hasKey = Boolean(p.apiKey);
  const available = isProviderAvailable(p);
  const missingKey = p.enabled && isSupportedProviderType(p.type) && p.type !== "openai-compatible" && !hasKey;
  return {
    id: p.id,
    type: p.type,
    name: p.name,
    display_name: p.name,
    icon: "",
    enabled: p.enabled,
    has_api_key: hasKey,
    has_user_api_key: false,
    has_effective_api_key: hasKey,
    allow_user_api_key: false,
    available,
    ...(missingKey ? { unavailable_reason: "missing_api_key" as const } : {}),
  };
}
