/**
 * Who may touch a project: its owner, and the organization's admins (the site owner included).
 * Projects are private to their owner because their memories hold what the owner's chats learned;
 * every other caller gets 404, as if the project did not exist.
 */
import type { Context } from "hono";
import { getProject } from "../projects/projects";
import type { ProjectRow } from "../db/schema/projects";
import type { AppEnv } from "./app-env";
import { notFoundError, requireOrganization } from "./org-access";
import { atLeast, orgRole } from "../accounts/roles";

export async function requireProject(c: Context<AppEnv>, organizationId: string, projectId: string): Promise<ProjectRow> {
  await requireOrganization(c, organizationId, "member");
  const project = await getProject(c.var.db, organizationId, projectId);
  if (!project || !(await mayManage(c, project))) throw notFoundError("Project");
  return project;
}

/** Admins see every project of the organization; members their own. */
export async function isOrganizationAdmin(c: Context<AppEnv>, organizationId: string): Promise<boolean> {
  return atLeast(await orgRole(c.var.db, c.var.caller, organizationId), "admin");
}

async function mayManage(c: Context<AppEnv>, project: ProjectRow): Promise<boolean> {
  return project.ownerId === c.var.caller.userId || (await isOrganizationAdmin(c, project.organizationId));
}
