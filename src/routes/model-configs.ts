/**
 * Organization-scoped model configs (docs/api.md "Model configs"): members read, organization admins
 * and the site owner write. Writes are serialized per organization (src/model-configs).
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  createModelConfig,
  deleteModelConfig,
  getModelConfig,
  listModelConfigs,
  type ModelConfigPatch,
  updateModelConfig,
} from "../model-configs/configs";
import { requireCaller, requireModelConfigReader } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { notFoundError, requireOrganization } from "../http/org-access";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";
import {
  ConfigParams,
  CreateModelConfigBody,
  ModelConfigSchema,
  modelConfigJson,
  OrgParams,
  UpdateModelConfigBody,
} from "./model-config-schemas";

const BASE = "/{organization}/chats/model-configs";

const createRouteDef = createRoute({
  method: "post",
  path: BASE,
  summary: "Create a model config (organization admin); the first one becomes the default",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { params: OrgParams, body: jsonBody(CreateModelConfigBody) },
  responses: { 201: jsonContent(ModelConfigSchema, "Created"), ...errorResponses(400, 401, 403, 404, 413) },
});

const listRoute = createRoute({
  method: "get",
  path: BASE,
  summary: "List the organization's model configs (members; a model-configuration read token too)",
  middleware: [requestDb, requireModelConfigReader],
  request: { params: OrgParams },
  responses: { 200: jsonContent(z.array(ModelConfigSchema), "Live model configs, oldest first"), ...errorResponses(400, 401, 404) },
});

const getRoute = createRoute({
  method: "get",
  path: `${BASE}/{id}`,
  summary: "Get a model config (members; a model-configuration read token too)",
  middleware: [requestDb, requireModelConfigReader],
  request: { params: ConfigParams },
  responses: { 200: jsonContent(ModelConfigSchema, "The model config"), ...errorResponses(400, 401, 404) },
});

const patchRoute = createRoute({
  method: "patch",
  path: `${BASE}/{id}`,
  summary: "Update a model config (organization admin); demoting the default elects another",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { params: ConfigParams, body: jsonBody(UpdateModelConfigBody) },
  responses: { 200: jsonContent(ModelConfigSchema, "Updated"), ...errorResponses(400, 401, 403, 404, 413) },
});

const deleteRouteDef = createRoute({
  method: "delete",
  path: `${BASE}/{id}`,
  summary: "Delete a model config (organization admin); deleting the default elects another",
  middleware: [requestDb, requireCaller],
  request: { params: ConfigParams },
  responses: { 204: { description: "Deleted" }, ...errorResponses(400, 401, 403, 404) },
});

export const modelConfigs = createRouter()
  .openapi(createRouteDef, async (c) => {
    const { organization } = c.req.valid("param");
    const input = c.req.valid("json");
    await requireOrganization(c, organization, "admin");
    const row = await createModelConfig(
      c.var.db,
      organization,
      {
        providerId: input.provider_id,
        model: input.model,
        displayName: input.display_name,
        enabled: input.enabled,
        isDefault: input.is_default,
        contextLimit: input.context_limit,
        compressionThreshold: input.compression_threshold,
        options: input.options,
        pricing: input.pricing,
      },
      new Date(),
    );
    return c.json(modelConfigJson(row), 201);
  })
  .openapi(listRoute, async (c) => {
    const { organization } = c.req.valid("param");
    await requireOrganization(c, organization, "member");
    // A list that may lag by the cached Hyperdrive config's max-age (src/http/request-db.ts); the access check above did not.
    return c.json((await listModelConfigs(c.var.cachedDb, organization)).map(modelConfigJson), 200);
  })
  .openapi(getRoute, async (c) => {
    const { organization, id } = c.req.valid("param");
    await requireOrganization(c, organization, "member");
    const row = await getModelConfig(c.var.db, organization, id);
    if (!row) throw notFoundError("Model config");
    return c.json(modelConfigJson(row), 200);
  })
  .openapi(patchRoute, async (c) => {
    const { organization, id } = c.req.valid("param");
    const input = c.req.valid("json");
    await requireOrganization(c, organization, "admin");
    const patch: ModelConfigPatch = {
      providerId: input.provider_id,
      model: input.model,
      displayName: input.display_name,
      enabled: input.enabled,
      isDefault: input.is_default,
      contextLimit: input.context_limit,
      compressionThreshold: input.compression_threshold,
      options: input.options,
      pricing: input.pricing,
    };
    const row = await updateModelConfig(c.var.db, organization, id, patch, new Date());
    if (!row) throw notFoundError("Model config");
    return c.json(modelConfigJson(row), 200);
  })
  .openapi(deleteRouteDef, async (c) => {
    const { organization, id } = c.req.valid("param");
    await requireOrganization(c, organization, "admin");
    if (!(await deleteModelConfig(c.var.db, organization, id, new Date()))) throw notFoundError("Model config");
    return c.body(null, 204);
  });
