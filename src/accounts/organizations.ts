/**
 * Organizations and memberships. A membership's role is "owner", "admin" or "member" (roles.ts
 * ranks them); the site owner's reach over every organization is decided in roles.ts, not stored
 * here.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "../db/database";
import { organizationMembers, organizations } from "../db/schema/auth";

export type OrganizationRow = typeof organizations.$inferSelect;
export type MemberRole = "owner" | "admin" | "member";
export const MEMBER_ROLES: readonly MemberRole[] = ["owner", "admin", "member"];

/** The name of the organization created with the first user. */
export const DEFAULT_ORGANIZATION_NAME = "default";

export async function getOrganization(db: Database, id: string): Promise<OrganizationRow | null> {
  const [row] = await db.select().from(organizations).where(eq(organizations.id, id));
  return row ?? null;
}

/**
 * The organization with `userId`'s membership role in it, in one read (a second read side by side
 * would open a second connection on a request's fresh pool); null when the organization does not exist.
 */
export async function getOrganizationWithRole(
  db: Database,
  organizationId: string,
  userId: string,
): Promise<{ organization: OrganizationRow; role: MemberRole | null } | null> {
  const [row] = await db
    .select({ organization: organizations, role: organizationMembers.role })
    .from(organizations)
    .leftJoin(organizationMembers, and(eq(organizationMembers.organizationId, organizations.id), eq(organizationMembers.userId, userId)))
    .where(eq(organizations.id, organizationId));
  if (!row) return null;
  return { organization: row.organization, role: row.role === null ? null : memberRoleOf(row.role) };
}

/**
 * Where a user's new chat goes when they name no organization, in one read: the deployment's
 * default organization (getDefaultOrganization's) if they belong to it, else the first they
 * joined; null when they belong to none.
 */
export async function chatOrganizationOf(db: Database, userId: string): Promise<string | null> {
  const defaultId = sql`(SELECT o.id FROM ${organizations} o WHERE o.is_default ORDER BY o.created_at, o.id LIMIT 1)`;
  const [row] = await db
    .select({ id: organizationMembers.organizationId })
    .from(organizationMembers)
    .where(eq(organizationMembers.userId, userId))
    .orderBy(
      sql`coalesce(${organizationMembers.organizationId} = ${defaultId}, false) DESC`,
      asc(organizationMembers.createdAt),
      asc(organizationMembers.organizationId),
    )
    .limit(1);
  return row?.id ?? null;
}

export async function getDefaultOrganization(db: Database): Promise<OrganizationRow | null> {
  const [row] = await db
    .select()
    .from(organizations)
    .where(eq(organizations.isDefault, true))
    .orderBy(asc(organizations.createdAt), asc(organizations.id))
    .limit(1);
  return row ?? null;
}

/** The default organization, created when there is none. Callers serialize (first-user lock). */
export async function ensureDefaultOrganization(db: Database): Promise<OrganizationRow> {
  const existing = await getDefaultOrganization(db);
  if (existing) return existing;
  const [created] = await db.insert(organizations).values({ name: DEFAULT_ORGANIZATION_NAME, isDefault: true }).returning();
  if (!created) throw new Error("insert into organizations returned no row");
  return created;
}

/** Adds the membership; an existing membership keeps its role (idempotent for the dev seed). */
export async function addMember(db: Database, organizationId: string, userId: string, role: MemberRole): Promise<void> {
  await db.insert(organizationMembers).values({ organizationId, userId, role }).onConflictDoNothing();
}

export async function getMemberRole(db: Database, organizationId: string, userId: string): Promise<MemberRole | null> {
  const [row] = await db
    .select({ role: organizationMembers.role })
    .from(organizationMembers)
    .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.userId, userId)));
  if (!row) return null;
  return memberRoleOf(row.role);
}

/** A stored membership role as one this service knows (anything else is a member). */
export const memberRoleOf = (stored: string): MemberRole =>
  MEMBER_ROLES.includes(stored as MemberRole) ? (stored as MemberRole) : "member";

export async function organizationIdsOf(db: Database, userId: string): Promise<string[]> {
  const rows = await db
    .select({ id: organizationMembers.organizationId })
    .from(organizationMembers)
    .where(eq(organizationMembers.userId, userId))
    .orderBy(asc(organizationMembers.createdAt), asc(organizationMembers.organizationId));
  return rows.map((r) => r.id);
}
