/**
 * The caller's own subagent model overrides (spec "Reasoning effort", precedence step 2):
 * `GET`, `PUT`, `DELETE /users/me/chats/model-overrides/{context}?organization=`. One row per
 * (caller, organization, context general|explore); any member of the organization manages their
 * own, nobody else's. The organization's own overrides are src/routes/model-overrides.ts.
 */
import { createRoute, type z } from "@hono/zod-openapi";
import type { ChatUserModelOverrideRow } from "../db/schema/subagents";
import { deletePersonalOverride, getPersonalOverride, setPersonalOverride } from "../model-configs/user-model-overrides";
import { isReasoningEffort } from "../llm/provider-options";
import { requireCaller } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { notFoundError, requireOrganization } from "../http/org-access";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";
import {
  PutUserModelOverrideBody,
  UserModelOverrideParams,
  UserModelOverrideQuery,
  UserModelOverrideSchema,
} from "./user-model-override-schemas";

const json = (row: ChatUserModelOverrideRow): z.infer<typeof UserModelOverrideSchema> => ({
  organization_id: row.organizationId,
  context: row.context,
  mode: row.mode,
  model_config_id: row.modelConfigId,
  reasoning_effort: isReasoningEffort(row.reasoningEffort) ? row.reasoningEffort : null,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

const PATH = "/me/chats/model-overrides/{context}";

const getRoute = createRoute({
  method: "get",
  path: PATH,
  summary: "The caller's personal subagent model override in an organization; 404 when unset",
  middleware: [requestDb, requireCaller],
  request: { params: UserModelOverrideParams, query: UserModelOverrideQuery },
  responses: { 200: jsonContent(UserModelOverrideSchema, "The override"), ...errorResponses(400, 401, 403, 404) },
});

const putRoute = createRoute({
  method: "put",
  path: PATH,
  summary: "Set the caller's personal subagent model override in an organization",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { params: UserModelOverrideParams, query: UserModelOverrideQuery, body: jsonBody(PutUserModelOverrideBody) },
  responses: { 200: jsonContent(UserModelOverrideSchema, "The stored override"), ...errorResponses(400, 401, 403, 404, 413) },
});

const deleteRoute = createRoute({
  method: "delete",
  path: PATH,
  summary: "Remove the caller's personal subagent model override in an organization",
  middleware: [requestDb, requireCaller],
  request: { params: UserModelOverrideParams, query: UserModelOverrideQuery },
  responses: { 204: { description: "Removed" }, ...errorResponses(400, 401, 403, 404) },
});

export const userModelOverrides = createRouter()
  .openapi(getRoute, async (c) => {
    const { context } = c.req.valid("param");
    const { organization } = c.req.valid("query");
    await requireOrganization(c, organization, "member");
    const row = await getPersonalOverride(c.var.db, { userId: c.var.caller.userId, organizationId: organization, context });
    if (!row) throw notFoundError("Model override");
    return c.json(json(row), 200);
  })
  .openapi(putRoute, async (c) => {
    const { context } = c.req.valid("param");
    const { organization } = c.req.valid("query");
    const body = c.req.valid("json");
    await requireOrganization(c, organization, "member");
    const key = { userId: c.var.caller.userId, organizationId: organization, context };
    const row = await setPersonalOverride(
      c.var.db,
      key,
      body.mode === "model" ? { mode: "model", modelConfigId: body.model_config_id, reasoningEffort: body.reasoning_effort ?? null } : body,
    );
    return c.json(json(row), 200);
  })
  .openapi(deleteRoute, async (c) => {
    const { context } = c.req.valid("param");
    const { organization } = c.req.valid("query");
    await requireOrganization(c, organization, "member");
    if (!(await deletePersonalOverride(c.var.db, { userId: c.var.caller.userId, organizationId: organization, context })))
      throw notFoundError("Model override");
    return c.body(null, 204);
  });
