/**
 * Users (docs/api.md "Auth", docs/accounts.md): `POST /users/first` (behind the bootstrap secret),
 * `POST /users`, `GET /users/me`, and for the site owner `PATCH /users/{user}` (suspension) and
 * `DELETE /users/{user}`. Signing in is sessions.ts; a user's keys are api-keys.ts.
 */
import { createRoute, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { atLeast, isSiteOwner, orgRole } from "../accounts/roles";
import { assertBootstrapAllowed } from "../accounts/bootstrap";
import { configFromEnv } from "../config/env";
import { getDefaultOrganization, getOrganization, type OrganizationRow, organizationIdsOf } from "../accounts/organizations";
import { createFirstUser, createUser, getUser, setSuspended, type UserRow } from "../accounts/users";
import { CannotDeleteSelfError, CannotSuspendSelfError } from "../accounts/errors";
import { deleteUser } from "../accounts/user-deletion";
import { apiErrorOf } from "../http/errors";
import { currentRequestId } from "../log/request-context";
import { chatObjectOf } from "./chat-object-calls";
import { targetUser, UserParam } from "./target-user";
import type { Database } from "../db/database";
import type { AppEnv } from "../http/app-env";
import { requireCaller } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { forbidden, notFoundError } from "../http/org-access";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";
import {
  BOOTSTRAP_HEADER,
  BootstrapHeaders,
  CreateFirstUserResponse,
  CreateUserBody,
  FirstUserBody,
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

const updateUserRoute = createRoute({
  method: "patch",
  path: "/{user}",
  summary: "Suspend or reactivate a user (site owner): a suspended user's keys stop authenticating and their sockets close",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { params: UserParam, body: jsonBody(UpdateUserBody) },
  responses: { 200: jsonContent(UserSchema, "Updated"), ...errorResponses(400, 401, 403, 404, 409, 413) },
});

const deleteUserRoute = createRoute({
  method: "delete",
  path: "/{user}",
  summary: "Delete a user (site owner): their keys and memberships go, their chats are archived and stop",
  middleware: [requestDb, requireCaller],
  request: { params: UserParam },
  responses: {
    200: jsonContent(DeleteUserResponse, "Deleted; their chats archived, or why not"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export const users = createRouter()
  .openapi(firstUserRoute, async (c) => {
    assertBootstrapAllowed(configFromEnv(c.env).CHAT_BOOTSTRAP_SECRET, c.req.header(BOOTSTRAP_HEADER));
    const input = c.req.valid("json");
    const passwordIterations = configFromEnv(c.env).CHAT_PASSWORD_HASH_ITERATIONS;
    const created = await createFirstUser(c.var.db, { ...input, email: input.email.toLowerCase(), passwordIterations }, new Date());
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
      passwordIterations: configFromEnv(c.env).CHAT_PASSWORD_HASH_ITERATIONS,
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
    else {
      const refused = apiErrorOf(answer.error);
      notArchived.push({ chat_id: chatId, reason: refused.detail ?? refused.message });
    }
  }
  return { archived_chat_ids: archived, not_archived: notArchived };
}
