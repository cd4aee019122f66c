/**
 * Deployment-scoped providers (docs/api.md "Providers"), site owner only. The API key goes in and never
 * comes out: responses say `has_api_key`.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { configFromEnv } from "../config/env";
import { createProvider, deleteProvider, getProvider, listProviders, type ProviderRow, updateProvider } from "../model-configs/providers";
import { requireCaller } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { ApiError } from "../http/errors";
import { notFoundError, requireSiteOwner } from "../http/org-access";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";
import { CreateProviderBody, IdParams, ProviderSchema, UpdateProviderBody } from "./provider-schemas";

function providerJson(p: ProviderRow): z.infer<typeof ProviderSchema> {
  return {
    id: p.id,
    type: p.type as z.infer<typeof ProviderSchema>["type"],
    name: p.name,
    base_url: p.baseUrl,
    enabled: p.enabled,
    has_api_key: p.apiKey !== null,
  };
}

const createRouteDef = createRoute({
  method: "post",
  path: "/",
  summary: "Create a provider (site owner)",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { body: jsonBody(CreateProviderBody) },
  responses: { 201: jsonContent(ProviderSchema, "Created"), ...errorResponses(400, 401, 403, 409, 413) },
});

const listRoute = createRoute({
  method: "get",
  path: "/",
  summary: "List providers (site owner)",
  middleware: [requestDb, requireCaller],
  responses: { 200: jsonContent(z.array(ProviderSchema), "Providers, oldest first"), ...errorResponses(401, 403) },
});

const getRoute = createRoute({
  method: "get",
  path: "/{id}",
  summary: "Get a provider (site owner)",
  middleware: [requestDb, requireCaller],
  request: { params: IdParams },
  responses: { 200: jsonContent(ProviderSchema, "The provider"), ...errorResponses(400, 401, 403, 404) },
});

const patchRoute = createRoute({
  method: "patch",
  path: "/{id}",
  summary: "Update a provider (site owner); null clears base_url or api_key",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { params: IdParams, body: jsonBody(UpdateProviderBody) },
  responses: { 200: jsonContent(ProviderSchema, "Updated"), ...errorResponses(400, 401, 403, 404, 409, 413) },
});

const deleteRouteDef = createRoute({
  method: "delete",
  path: "/{id}",
  summary: "Delete a provider no live model config uses (site owner)",
  middleware: [requestDb, requireCaller],
  request: { params: IdParams },
  responses: { 204: { description: "Deleted" }, ...errorResponses(400, 401, 403, 404, 409) },
});

export const providers = createRouter()
  .openapi(createRouteDef, async (c) => {
    requireSiteOwner(c);
    const input = c.req.valid("json");
    const row = await createProvider(
      c.var.db,
      { type: input.type, name: input.name, baseUrl: input.base_url, apiKey: input.api_key, enabled: input.enabled },
      configFromEnv(c.env).CHAT_SECRETS_KEYS,
    );
    return c.json(providerJson(row), 201);
  })
  .openapi(listRoute, async (c) => {
    requireSiteOwner(c);
    // A list that may lag by the cached Hyperdrive config's max-age (src/http/request-db.ts).
    return c.json((await listProviders(c.var.cachedDb)).map(providerJson), 200);
  })
  .openapi(getRoute, async (c) => {
    requireSiteOwner(c);
    const row = await getProvider(c.var.db, c.req.valid("param").id);
    if (!row) throw notFoundError("Provider");
    return c.json(providerJson(row), 200);
  })
  .openapi(patchRoute, async (c) => {
    requireSiteOwner(c);
    const { id } = c.req.valid("param");
    const input = c.req.valid("json");
    const db = c.var.db;
    const current = await getProvider(db, id);
    if (!current) throw notFoundError("Provider");
    if (current.type === "openai-compatible" && input.base_url === null) {
      throw new ApiError(400, "validation_failed", "Request validation failed.", undefined, [
        { field: "base_url", detail: "required for openai-compatible providers" },
      ]);
    }
    const row = await updateProvider(
      db,
      id,
      { name: input.name, baseUrl: input.base_url, apiKey: input.api_key, enabled: input.enabled },
      new Date(),
      configFromEnv(c.env).CHAT_SECRETS_KEYS,
    );
    if (!row) throw notFoundError("Provider");
    return c.json(providerJson(row), 200);
  })
  .openapi(deleteRouteDef, async (c) => {
    requireSiteOwner(c);
    if (!(await deleteProvider(c.var.db, c.req.valid("param").id))) throw notFoundError("Provider");
    return c.body(null, 204);
  });
