/**
 * `/organizations` and their members (docs/accounts.md): the site owner creates organizations;
 * admins add members and change their roles, owners manage owners; anyone may leave; every
 * organization keeps an owner (src/accounts/memberships.ts). An organization the caller is not in
 * answers 404, as if it did not exist.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  addMembership,
  changeMembership,
  createOrganization,
  getMember,
  listAllOrganizations,
  listMembers,
  listOrganizationsOf,
} from "../accounts/memberships";
import { getOrganizationWithRole, type MemberRole } from "../accounts/organizations";
import { atLeast, effectiveRole, isSiteOwner } from "../accounts/roles";
import { findUserByUsername, getUser, type UserRow } from "../accounts/users";
import type { AppEnv } from "../http/app-env";
import { requireCaller } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { forbidden, notFoundError, requireOrganization, requireSiteOwner } from "../http/org-access";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";
import {
  AddMemberBody,
  CreateOrganizationBody,
  MemberParams,
  memberJson,
  OrganizationMemberSchema,
  OrganizationParams,
  UpdateMemberBody,
} from "./organization-schemas";
import { OrganizationSchema } from "./user-schemas";

const MEMBERS = "/{organization}/members";
const MEMBER = `${MEMBERS}/{user}`;

const createOrgRoute = createRoute({
  method: "post",
  path: "/",
  summary: "Create an organization, its creator its owner (site owner)",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { body: jsonBody(CreateOrganizationBody) },
  responses: { 201: jsonContent(OrganizationSchema, "Created"), ...errorResponses(400, 401, 403, 409, 413) },
});

const listOrgsRoute = createRoute({
  method: "get",
  path: "/",
  summary: "The caller's organizations (the site owner: every one), oldest first",
  middleware: [requestDb, requireCaller],
  responses: { 200: jsonContent(z.array(OrganizationSchema), "Organizations"), ...errorResponses(401) },
});

const listMembersRoute = createRoute({
  method: "get",
  path: MEMBERS,
  summary: "An organization's members and their roles (members)",
  middleware: [requestDb, requireCaller],
  request: { params: OrganizationParams },
  responses: { 200: jsonContent(z.array(OrganizationMemberSchema), "Members"), ...errorResponses(400, 401, 404) },
});

const addMemberRoute = createRoute({
  method: "post",
  path: MEMBERS,
  summary: "Add an existing user (admins; an owner: owners)",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { params: OrganizationParams, body: jsonBody(AddMemberBody) },
  responses: { 201: jsonContent(OrganizationMemberSchema, "Added"), ...errorResponses(400, 401, 403, 404, 409, 413) },
});

const updateMemberRoute = createRoute({
  method: "patch",
  path: MEMBER,
  summary: "Change a member's role (admins; to or from owner: owners); an organization keeps an owner",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { params: MemberParams, body: jsonBody(UpdateMemberBody) },
  responses: { 200: jsonContent(OrganizationMemberSchema, "Changed"), ...errorResponses(400, 401, 403, 404, 409, 413) },
});

const removeMemberRoute = createRoute({
  method: "delete",
  path: MEMBER,
  summary: "Remove a member, or leave (admins; an owner: owners); their access to the organization ends at once",
  middleware: [requestDb, requireCaller],
  request: { params: MemberParams },
  responses: { 204: { description: "Removed" }, ...errorResponses(400, 401, 403, 404, 409) },
});

/** "me", a user ID or a username, as a member of the organization; 404 otherwise. */
async function memberUser(c: Context<AppEnv>, ref: string): Promise<UserRow> {
  const id = ref === "me" ? c.var.caller.userId : ref;
  const user = z.uuid().safeParse(id).success ? await getUser(c.var.db, id) : await findUserByUsername(c.var.db, ref);
  if (!user) throw notFoundError("Member");
  return user;
}

/** The caller's role in the organization (the site owner: owner); 404 when they are not in it. */
async function callerRole(c: Context<AppEnv>, organizationId: string): Promise<MemberRole> {
  const found = await getOrganizationWithRole(c.var.db, organizationId, c.var.caller.userId);
  const role = found && effectiveRole(c.var.caller, found.role);
  if (!role) throw notFoundError("Organization");
  return role;
}

/** Admins manage members; a change that gives or takes the owner role needs an owner. */
function assertMayManage(caller: MemberRole, roles: readonly MemberRole[]): void {
  const need: MemberRole = roles.includes("owner") ? "owner" : "admin";
  if (!atLeast(caller, need)) throw forbidden(`Only organization ${need}s may do this.`);
}

export const organizationRoutes = createRouter()
  .openapi(createOrgRoute, async (c) => {
    requireSiteOwner(c);
    const org = await createOrganization(c.var.db, c.req.valid("json").name, c.var.caller.userId);
    return c.json({ id: org.id, name: org.name, is_default: org.isDefault, created_at: org.createdAt.toISOString() }, 201);
  })
  .openapi(listOrgsRoute, async (c) => {
    const orgs = isSiteOwner(c.var.caller)
      ? await listAllOrganizations(c.var.db)
      : await listOrganizationsOf(c.var.db, c.var.caller.userId);
    return c.json(
      orgs.map((o) => ({ id: o.id, name: o.name, is_default: o.isDefault, created_at: o.createdAt.toISOString() })),
      200,
    );
  })
  .openapi(listMembersRoute, async (c) => {
    const { organization } = c.req.valid("param");
    await requireOrganization(c, organization, "member");
    return c.json((await listMembers(c.var.db, organization)).map(memberJson), 200);
  })
  .openapi(addMemberRoute, async (c) => {
    const { organization } = c.req.valid("param");
    const input = c.req.valid("json");
    assertMayManage(await callerRole(c, organization), [input.role]);
    const user = await memberUser(c, input.user);
    await addMembership(c.var.db, organization, user.id, input.role);
    const added = await getMember(c.var.db, organization, user.id);
    if (!added) throw notFoundError("Member");
    return c.json(memberJson(added), 201);
  })
  .openapi(updateMemberRoute, async (c) => {
    const { organization, user: ref } = c.req.valid("param");
    const { role } = c.req.valid("json");
    const caller = await callerRole(c, organization);
    const user = await memberUser(c, ref);
    const current = await getMember(c.var.db, organization, user.id);
    if (!current) throw notFoundError("Member");
    assertMayManage(caller, [current.role, role]);
    await changeMembership(c.var.db, organization, user.id, role);
    return c.json(memberJson({ ...current, role }), 200);
  })
  .openapi(removeMemberRoute, async (c) => {
    const { organization, user: ref } = c.req.valid("param");
    const caller = await callerRole(c, organization);
    const user = await memberUser(c, ref);
    const current = await getMember(c.var.db, organization, user.id);
    if (!current) throw notFoundError("Member");
    // Anyone may leave; removing another takes an admin, or an owner for an owner.
    if (user.id !== c.var.caller.userId) assertMayManage(caller, [current.role]);
    await changeMembership(c.var.db, organization, user.id, null);
    return c.body(null, 204);
  });
