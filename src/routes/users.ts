/**
 * Users, sign-in and tokens (docs/api.md "Auth", docs/accounts.md): `POST /users/first`,
 * `POST /users`, `GET /users/me`, `POST /users/login`, `POST /users/logout`, and a user's keys:
 * `POST /users/{user}/keys/tokens`, `GET /users/{user}/keys/tokens`, `DELETE /users/{user}/keys/{key}`.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { atLeast, isSiteOwner, orgRole } from "../accounts/roles";
import { type ApiKeyRow, createApiKey, deleteApiKey, getApiKey, listApiKeys, TOKEN_LOGIN_TYPE } from "../accounts/api-keys";
import { AuthenticationError } from "../accounts/authentication";
import { assertBootstrapAllowed } from "../accounts/bootstrap";
import { signIn, signOut } from "../accounts/sessions";
import { configFromEnv } from "../config/env";
import { clearSessionCookie, setSessionCookie } from "../http/session-cookie";
import { getDefaultOrganization, getOrganization, type OrganizationRow, organizationIdsOf } from "../accounts/organizations";
import { createFirstUser, createUser, findUserByUsername, getUser, setSuspended, type UserRow } from "../accounts/users";
import { CannotDeleteSelfError, CannotSuspendSelfError } from "../accounts/errors";
import { deleteUser } from "../accounts/user-deletion";
import { apiErrorOf } from "../http/errors";
import { currentRequestId } from "../log/request-context";
import { chatObjectOf } from "./chat-object-calls";
import type { Database } from "../db/database";
import type { AppEnv } from "../http/app-env";
import { requireCaller } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { forbidden, notFoundError } from "../http/org-access";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";
import {
  ApiKeyList,
  BOOTSTRAP_HEADER,
  BootstrapHeaders,
  type ApiKeySchema,
  CreateFirstUserResponse,
  CreateTokenBody,
  CreateTokenResponse,
  CreateUserBody,
  DEFAULT_TOKEN_LIFETIME_SECONDS,
  FirstUserBody,
  LoginBody,
  LoginResponse,
  LogoutResponse,
  UpdateUserBody,
  DeleteUserResponse,
  type OrganizationSchema,
  UserSchema,
} from "./user-schemas";

function userJson(user: UserRow, organizationIds: string[]): z.infer<typeof UserSchema> {
  return {
    id: user.id,
    email: user.email,
    username: user.username,
    roles: user.siteRoles,
    organization_ids: organizationIds,
    suspended: user.suspended,
    created_at: user.createdAt.toISOString(),
  };
}

function organizationJson(org: OrganizationRow): z.infer<typeof OrganizationSchema> {
  return { id: org.id, name: org.name, is_default: org.isDefault, created_at: org.createdAt.toISOString() };
}

async function userWithOrgs(db: Database, user: UserRow) {
  return userJson(user, await organizationIdsOf(db, user.id));
}

const firstUserRoute = createRoute({
  method: "post",
  path: "/first",
  summary: "Create the first user (site owner), the default organization and a session token; needs the operator's bootstrap secret",
  security: [],
  middleware: [requestDb, jsonBodyLimit],
  request: { body: jsonBody(FirstUserBody), headers: BootstrapHeaders },
  responses: {
    201: jsonContent(CreateFirstUserResponse, "Created"),
    ...errorResponses(400, 403, 409, 413),
  },
});

const createUserRoute = createRoute({
  method: "post",
  path: "/",
  summary: "Create a user in an organization (site owner or organization admin)",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { body: jsonBody(CreateUserBody) },
  responses: { 201: jsonContent(UserSchema, "Created"), ...errorResponses(400, 401, 403, 404, 409, 413) },
});

const meRoute = createRoute({
  method: "get",
  path: "/me",
  summary: "The calling user",
  middleware: [requestDb, requireCaller],
  responses: { 200: jsonContent(UserSchema, "The caller"), ...errorResponses(401) },
});

const userParam = z.object({ user: z.string().min(1).max(64).openapi({ description: '"me", a user ID or a username', example: "me" }) });

const updateUserRoute = createRoute({
  method: "patch",
  path: "/{user}",
  summary: "Suspend or reactivate a user (site owner): a suspended user's keys stop authenticating and their sockets close",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { params: userParam, body: jsonBody(UpdateUserBody) },
  responses: { 200: jsonContent(UserSchema, "Updated"), ...errorResponses(400, 401, 403, 404, 409, 413) },
});

const deleteUserRoute = createRoute({
  method: "delete",
  path: "/{user}",
  summary: "Delete a user (site owner): their keys and memberships go, their chats are archived and stop",
  middleware: [requestDb, requireCaller],
  request: { params: userParam },
  responses: {
    200: jsonContent(DeleteUserResponse, "Deleted; their chats archived, or why not"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

const loginRoute = createRoute({
  method: "post",
  path: "/login",
  summary: "Sign in with email and password: a session token, also set as the HttpOnly session cookie",
  security: [],
  middleware: [requestDb, jsonBodyLimit],
  request: { body: jsonBody(LoginBody) },
  responses: { 201: jsonContent(LoginResponse, "Signed in"), ...errorResponses(400, 401, 413, 429) },
});

const logoutRoute = createRoute({
  method: "post",
  path: "/logout",
  summary: "Sign out: the session (or token) the request authenticated with is revoked, with every token it minted",
  middleware: [requestDb, requireCaller],
  responses: { 200: jsonContent(LogoutResponse, "Signed out"), ...errorResponses(401, 403) },
});

const listTokensRoute = createRoute({
  method: "get",
  path: "/{user}/keys/tokens",
  summary: "A user's tokens and sessions, newest first, without their secrets (yours; the site owner's: anyone's)",
  middleware: [requestDb, requireCaller],
  request: { params: userParam },
  responses: { 200: jsonContent(ApiKeyList, "The keys"), ...errorResponses(401, 404) },
});

const deleteTokenRoute = createRoute({
  method: "delete",
  path: "/{user}/keys/{key}",
  summary: "Revoke a token or session, and every token minted with it (yours; the site owner: anyone's)",
  middleware: [requestDb, requireCaller],
  request: { params: userParam.extend({ key: z.string().min(1).max(64) }) },
  responses: { 204: { description: "Revoked" }, ...errorResponses(401, 403, 404) },
});

const createTokenRoute = createRoute({
  method: "post",
  path: "/{user}/keys/tokens",
  summary: "Create an API token for yourself (or, as site owner, for anyone)",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { params: userParam, body: jsonBody(CreateTokenBody) },
  responses: {
    201: jsonContent(CreateTokenResponse, "Created; the token is shown only this once"),
    ...errorResponses(400, 401, 404, 409, 413),
  },
});

/** "me", an ID or a username; a user the caller may not manage is reported as missing. */
async function targetUser(c: Context<AppEnv>, ref: string): Promise<UserRow> {
  const db = c.var.db;
  const caller = c.var.caller;
  const id = ref === "me" ? caller.userId : ref;
  const user = z.uuid().safeParse(id).success ? await getUser(db, id) : await findUserByUsername(db, ref);
  if (!user || (user.id !== caller.userId && !isSiteOwner(caller))) throw notFoundError("User");
  return user;
}

export const users = createRouter()
  .openapi(firstUserRoute, async (c) => {
    assertBootstrapAllowed(configFromEnv(c.env).CHAT_BOOTSTRAP_SECRET, c.req.header(BOOTSTRAP_HEADER));
    const input = c.req.valid("json");
    const created = await createFirstUser(c.var.db, { ...input, email: input.email.toLowerCase() }, new Date());
    return c.json(
      {
        user: userJson(created.user, [created.organization.id]),
        organization: organizationJson(created.organization),
        session_token: created.sessionToken,
      },
      201,
    );
  })
  .openapi(createUserRoute, async (c) => {
    const input = c.req.valid("json");
    const db = c.var.db;
    const organization = input.organization_id ? await getOrganization(db, input.organization_id) : await getDefaultOrganization(db);
    const role = organization ? await orgRole(db, c.var.caller, organization.id) : null;
    if (!organization || role === null) throw notFoundError("Organization");
    if (!atLeast(role, "admin")) throw forbidden("Only the site owner and organization admins may create users.");
    const user = await createUser(db, {
      email: input.email.toLowerCase(),
      username: input.username,
      password: input.password,
      organizationId: organization.id,
      role: "member",
    });
    return c.json(userJson(user, [organization.id]), 201);
  })
  .openapi(meRoute, async (c) => {
    const user = await getUser(c.var.db, c.var.caller.userId);
    // The key authenticated a moment ago, so the user exists unless it was deleted in between.
    if (!user) throw notFoundError("User");
    return c.json(await userWithOrgs(c.var.db, user), 200);
  })
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
  .openapi(updateUserRoute, async (c) => {
    if (!isSiteOwner(c.var.caller)) throw forbidden("Only the site owner may suspend or reactivate users.");
    const user = await targetUser(c, c.req.valid("param").user);
    const { suspended } = c.req.valid("json");
    if (suspended && user.id === c.var.caller.userId) throw new CannotSuspendSelfError();
    const updated = await setSuspended(c.var.db, user.id, suspended);
    if (!updated) throw notFoundError("User");
    return c.json(await userWithOrgs(c.var.db, updated), 200);
  })
  .openapi(deleteUserRoute, async (c) => {
    if (!isSiteOwner(c.var.caller)) throw forbidden("Only the site owner may delete users.");
    const user = await targetUser(c, c.req.valid("param").user);
    if (user.id === c.var.caller.userId) throw new CannotDeleteSelfError();
    const deleted = await deleteUser(c.var.db, user.id, new Date());
    if (!deleted) throw notFoundError("User");
    return c.json(await archiveChats(c, user.id, deleted.rootChatIds), 200);
  })
  .openapi(loginRoute, async (c) => {
    const input = c.req.valid("json");
    const config = configFromEnv(c.env);
    const address = c.req.header("CF-Connecting-IP") ?? undefined;
    const session = await signIn(c.var.db, { ...input, address }, new Date(), config);
    setSessionCookie(c, session.token, config.CHAT_SESSION_MAX_SECONDS);
    return c.json({ session_token: session.token, expires_at: session.key.expiresAt.toISOString() }, 201);
  })
  .openapi(logoutRoute, async (c) => {
    await signOut(c.var.db, c.var.caller);
    clearSessionCookie(c);
    return c.json({ message: "Signed out." }, 200);
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

/**
 * Archives each of a deleted user's families through its root's own object, as their PATCH
 * `{archived: true, interrupt: true}` would: what runs is interrupted first (stop-for-archive.ts),
 * every object hears of it. The route acts for the owner, whom the site owner's deletion
 * authorized. A family the archive refuses (a running member with queued messages) is reported.
 */
async function archiveChats(c: Context<AppEnv>, userId: string, rootChatIds: readonly string[]) {
  const archived: string[] = [];
  const notArchived: { chat_id: string; reason: string }[] = [];
  const from = { requestId: currentRequestId() ?? crypto.randomUUID(), caller: { userId, siteRoles: [] } };
  for (const chatId of rootChatIds) {
    const answer = await chatObjectOf(c, chatId).update(from, { chatId, archived: true, interruptRunning: true });
    if (answer.ok) archived.push(chatId);
    else notArchived.push({ chat_id: chatId, reason: apiErrorOf(answer.error).detail ?? apiErrorOf(answer.error).message });
  }
  return { archived_chat_ids: archived, not_archived: notArchived };
}

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
