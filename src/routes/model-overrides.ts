/**
 * Organization model overrides (organization admins): `GET`, `PUT`, `DELETE
 * /organizations/{organization}/chats/model-overrides/{context}`. Today the one context is
 * `compaction`: the model that writes compaction summaries instead of the chat model.
 */
import { createRoute, type z } from "@hono/zod-openapi";
import { ModelOverrideParams, ModelOverrideSchema, PutModelOverrideBody } from "./model-override-schemas";
import { deleteModelOverride, getModelOverride, setModelOverride } from "../model-configs/model-overrides";
import type { ChatOrganizationModelOverrideRow } from "../db/schema/compaction";
import { requireCaller } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { notFoundError, requireOrganization } from "../http/org-access";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";

const json = (row: ChatOrganizationModelOverrideRow): z.infer<typeof ModelOverrideSchema> => ({
  organization_id: row.organizationId,
  context: row.context,
  model_config_id: row.modelConfigId,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

const PATH = "/{organization}/chats/model-overrides/{context}";

const getRoute = createRoute({
  method: "get",
  path: PATH,
  summary: "The organization's model override for a context (organization admin); 404 when unset",
  middleware: [requestDb, requireCaller],
  request: { params: ModelOverrideParams },
  responses: { 200: jsonContent(ModelOverrideSchema, "The override"), ...errorResponses(400, 401, 403, 404) },
});

const putRoute = createRoute({
  method: "put",
  path: PATH,
  summary: "Set the organization's model override for a context (organization admin)",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { params: ModelOverrideParams, body: jsonBody(PutModelOverrideBody) },
  responses: { 200: jsonContent(ModelOverrideSchema, "The stored override"), ...errorResponses(400, 401, 403, 404, 413) },
});

const deleteRoute = createRoute({
  method: "delete",
  path: PATH,
  summary: "Remove the organization's model override for a context (organization admin)",
  middleware: [requestDb, requireCaller],
  request: { params: ModelOverrideParams },
  responses: { 204: { description: "Removed" }, ...errorResponses(400, 401, 403, 404) },
});

export const modelOverrides = createRouter()
  .openapi(getRoute, async (c) => {
    const { organization, context } = c.req.valid("param");
    await requireOrganization(c, organization, "admin");
    const row = await getModelOverride(c.var.db, organization, context);
    if (!row) throw notFoundError("Model override");
    return c.json(json(row), 200);
  })
  .openapi(putRoute, async (c) => {
    const { organization, context } = c.req.valid("param");
    const input = c.req.valid("json");
    await requireOrganization(c, organization, "admin");
    return c.json(json(await setModelOverride(c.var.db, organization, context, input.model_config_id)), 200);
  })
  .openapi(deleteRoute, async (c) => {
    const { organization, context } = c.req.valid("param");
    await requireOrganization(c, organization, "admin");
    if (!(await deleteModelOverride(c.var.db, organization, context))) throw notFoundError("Model override");
    return c.body(null, 204);
  });
