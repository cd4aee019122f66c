/**
 * `GET /organizations/{org}/chats/models` (spec "Organization-scoped model discovery"): the
 * organization's live model configs, every provider as a redacted descriptor with its
 * availability (never credentials or endpoints), and the provider types this build cannot serve.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { listModelConfigs } from "../model-configs/configs";
import { isProviderAvailable, isSupportedProviderType, listProviders } from "../model-configs/providers";
import { requireModelConfigReader } from "../http/auth";
import { requireOrganization } from "../http/org-access";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses } from "../http/router";
import { ModelsSchema, modelConfigJson } from "./model-config-schemas";

const route = createRoute({
  method: "get",
  path: "/{organization}/chats/models",
  summary: "Models a member of the organization can choose from (a model-configuration read token too)",
  middleware: [requestDb, requireModelConfigReader],
  request: { params: z.object({ organization: z.uuid() }) },
  responses: {
    200: {
      description: "Configs, redacted providers and unsupported provider types",
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
      configs: configs.map(modelConfigJson),
      providers: providers.map((p) => ({ id: p.id, type: p.type, name: p.name, enabled: p.enabled, available: isProviderAvailable(p) })),
      unsupported_provider_types: [...new Set(providers.map((p) => p.type).filter((t) => !isSupportedProviderType(t)))].sort(),
    },
    200,
  );
});
