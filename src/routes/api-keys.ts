/**
 * A user's API keys (docs/accounts.md "Tokens"): mint a token (`POST /users/{user}/keys/tokens`,
 * minted with the caller's own key, which it never outlives), list tokens and sessions without
 * their secrets, revoke one with every token minted from it. Yourself; the site owner: anyone.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { type ApiKeyRow, createApiKey, deleteApiKey, getApiKey, listApiKeys, TOKEN_LOGIN_TYPE } from "../accounts/api-keys";
import { AuthenticationError } from "../accounts/authentication";
import { requireCaller } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { notFoundError } from "../http/org-access";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";
import { targetUser, UserParam } from "./target-user";
import { ApiKeyList, type ApiKeySchema, CreateTokenBody, CreateTokenResponse, DEFAULT_TOKEN_LIFETIME_SECONDS } from "./user-schemas";

const listTokensRoute = createRoute({
  method: "get",
  path: "/{user}/keys/tokens",
  summary: "A user's tokens and sessions, newest first, without their secrets (yours; the site owner's: anyone's)",
  middleware: [requestDb, requireCaller],
  request: { params: UserParam },
  responses: { 200: jsonContent(ApiKeyList, "The keys"), ...errorResponses(401, 404) },
});

const deleteTokenRoute = createRoute({
  method: "delete",
  path: "/{user}/keys/{key}",
  summary: "Revoke a token or session, and every token minted with it (yours; the site owner: anyone's)",
  middleware: [requestDb, requireCaller],
  request: { params: UserParam.extend({ key: z.string().min(1).max(64) }) },
  responses: { 204: { description: "Revoked" }, ...errorResponses(401, 403, 404) },
});

const createTokenRoute = createRoute({
  method: "post",
  path: "/{user}/keys/tokens",
  summary: "Create an API token for yourself (or, as site owner, for anyone)",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { params: UserParam, body: jsonBody(CreateTokenBody) },
  responses: {
    201: jsonContent(CreateTokenResponse, "Created; the token is shown only this once"),
    ...errorResponses(400, 401, 404, 409, 413),
  },
});

export const apiKeyRoutes = createRouter()
  .openapi(createTokenRoute, async (c) => {
    const { user: ref } = c.req.valid("param");
    const input = c.req.valid("json");
    const user = await targetUser(c, ref);
    const lifetimeMs = (input.lifetime_seconds ?? DEFAULT_TOKEN_LIFETIME_SECONDS) * 1000;
    // Minted with the caller's own key: it ends no later than that key, and with it.
    const parent = await getApiKey(c.var.db, c.var.caller.apiKeyId);
    if (!parent) throw new AuthenticationError("The session token is invalid.");
    const { token } = await createApiKey(c.var.db, {
      userId: user.id,
      tokenName: input.token_name,
      loginType: TOKEN_LOGIN_TYPE,
      scope: input.scope,
      expiresAt: new Date(Date.now() + lifetimeMs),
      parent,
    });
    return c.json({ key: token }, 201);
  })
  .openapi(listTokensRoute, async (c) => {
    const user = await targetUser(c, c.req.valid("param").user);
    return c.json((await listApiKeys(c.var.db, user.id)).map(apiKeyJson), 200);
  })
  .openapi(deleteTokenRoute, async (c) => {
    const { user: ref, key } = c.req.valid("param");
    const user = await targetUser(c, ref);
    if (!(await deleteApiKey(c.var.db, user.id, key))) throw notFoundError("Token");
    return c.body(null, 204);
  });

function apiKeyJson(key: ApiKeyRow): z.infer<typeof ApiKeySchema> {
  return {
    id: key.id,
    user_id: key.userId,
    token_name: key.tokenName,
    login_type: key.loginType,
    scope: key.scope,
    created_at: key.createdAt.toISOString(),
    expires_at: key.expiresAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    parent_key_id: key.parentKeyId,
  };
}
