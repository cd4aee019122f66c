/**
 * Who may touch an organization's resources: members read, admins (and the site owner) write.
 * A caller outside the organization gets 404, as if it did not exist; a member asking to write
 * gets 403, since it already knows the organization exists.
 */
import type { Context } from "hono";
import { atLeast, effectiveRole, isSiteOwner } from "../accounts/roles";
import { getOrganizationWithRole, type MemberRole, type OrganizationRow } from "../accounts/organizations";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";

export function forbidden(detail: string): ApiError {
  return new ApiError(403, "forbidden", "Forbidden.", detail);
}

export function notFoundError(what: string): ApiError {
  return new ApiError(404, "not_found", "Resource not found.", `${what} not found.`);
}

export async function requireOrganization(c: Context<AppEnv>, organizationId: string, need: MemberRole): Promise<OrganizationRow> {
  const db = c.var.db;
  const caller = c.var.caller;
  const found = await getOrganizationWithRole(db, organizationId, caller.userId);
  const role = found && effectiveRole(caller, found.role);
  if (!found || !role) throw notFoundError("Organization");
  if (!atLeast(role, need)) throw forbidden(`Only organization ${need}s may do this.`);
  return found.organization;
}

/** Deployment-wide configuration (providers) belongs to the site owner alone. */
export function requireSiteOwner(c: Context<AppEnv>): void {
  if (!isSiteOwner(c.var.caller)) throw forbidden("Only the site owner may do this.");
}
