/**
 * Roles (docs/accounts.md): the site owner (deployment-wide, `users.site_roles`), and per
 * organization an owner, an admin or a member (`organization_members.role`). Each role may do
 * what the ones below it may; an owner also manages owners. A site owner acts as an owner of every
 * organization.
 */
import { type MemberRole, getMemberRole } from "./organizations";
import type { Database } from "../db/database";

export const SITE_OWNER = "owner";

/** What a caller may do in one organization; null: nothing (and it should not learn it exists). */
export type OrgRole = MemberRole | null;

export function isSiteOwner(caller: { siteRoles: readonly string[] }): boolean {
  return caller.siteRoles.includes(SITE_OWNER);
}

/** The caller's effective role in an organization, site ownership included. */
export async function orgRole(
  db: Database,
  caller: { userId: string; siteRoles: readonly string[] },
  organizationId: string,
): Promise<OrgRole> {
  if (isSiteOwner(caller)) return "owner";
  return getMemberRole(db, organizationId, caller.userId);
}

/** orgRole for a membership role already read with the organization. */
export function effectiveRole(caller: { siteRoles: readonly string[] }, memberRole: MemberRole | null): OrgRole {
  return isSiteOwner(caller) ? "owner" : memberRole;
}

const RANK: Record<MemberRole, number> = { member: 0, admin: 1, owner: 2 };

/** Whether `role` may do what `need` may (an owner is an admin too). */
export function atLeast(role: OrgRole, need: MemberRole): boolean {
  return role !== null && RANK[role] >= RANK[need];
}
