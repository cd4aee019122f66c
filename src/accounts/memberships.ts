/**
 * Organizations and their members as their admins manage them (docs/accounts.md): create an
 * organization (its creator its first owner), list, add, change the role of and remove members.
 * Every organization keeps at least one owner: each change that could take the last one away
 * runs under the organization row's lock, so two owners demoting each other at once cannot both
 * succeed.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "../db/database";
import { READ_COMMITTED } from "../db/database";
import { isUniqueViolation } from "../db/pg-errors";
import { organizationMembers, organizations, users } from "../db/schema/auth";
import { AlreadyExistsError, LastOwnerError } from "./errors";
import { type MemberRole, memberRoleOf, type OrganizationRow } from "./organizations";

export interface Member {
  userId: string;
  username: string;
  email: string;
  role: MemberRole;
  suspended: boolean;
  joinedAt: Date;
}

/** A new organization, with `creatorId` its owner. */
export async function createOrganization(db: Database, name: string, creatorId: string): Promise<OrganizationRow> {
  try {
    return await db.transaction(async (tx) => {
      const [org] = await tx.insert(organizations).values({ name }).returning();
      if (!org) throw new Error("insert into organizations returned no row");
      await tx.insert(organizationMembers).values({ organizationId: org.id, userId: creatorId, role: "owner" });
      return org;
    }, READ_COMMITTED);
  } catch (err) {
    if (isUniqueViolation(err)) throw new AlreadyExistsError("organization", "name");
    throw err;
  }
}

/** Every organization, oldest first (the site owner's view). */
export async function listAllOrganizations(db: Database): Promise<OrganizationRow[]> {
  return db.select().from(organizations).orderBy(asc(organizations.createdAt), asc(organizations.id));
}

/** The organizations `userId` belongs to, oldest membership first. */
export async function listOrganizationsOf(db: Database, userId: string): Promise<OrganizationRow[]> {
  const rows = await db
    .select({ organization: organizations })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
    .where(eq(organizationMembers.userId, userId))
    .orderBy(asc(organizationMembers.createdAt), asc(organizations.id));
  return rows.map((r) => r.organization);
}

const memberColumns = {
  userId: users.id,
  username: users.username,
  email: users.email,
  role: organizationMembers.role,
  suspended: users.suspended,
  joinedAt: organizationMembers.createdAt,
};

const asMember = (row: { role: string } & Omit<Member, "role">): Member => ({ ...row, role: memberRoleOf(row.role) });

export async function listMembers(db: Database, organizationId: string): Promise<Member[]> {
  const rows = await db
    .select(memberColumns)
    .from(organizationMembers)
    .innerJoin(users, eq(users.id, organizationMembers.userId))
    .where(eq(organizationMembers.organizationId, organizationId))
    .orderBy(asc(organizationMembers.createdAt), asc(users.id));
  return rows.map(asMember);
}

export async function getMember(db: Database, organizationId: string, userId: string): Promise<Member | null> {
  const [row] = await db
    .select(memberColumns)
    .from(organizationMembers)
    .innerJoin(users, eq(users.id, organizationMembers.userId))
    .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.userId, userId)));
  return row ? asMember(row) : null;
}

/** Adds an existing user; AlreadyExistsError when they are a member already. */
export async function addMembership(db: Database, organizationId: string, userId: string, role: MemberRole): Promise<void> {
  const inserted = await db
    .insert(organizationMembers)
    .values({ organizationId, userId, role })
    .onConflictDoNothing()
    .returning({ userId: organizationMembers.userId });
  if (inserted.length === 0) throw new AlreadyExistsError("member", "user");
}

/**
 * Sets a member's role, or removes them (`role` null), under the organization's lock; LastOwnerError
 * when that would leave the organization without an owner. Whether the member existed.
 */
export async function changeMembership(db: Database, organizationId: string, userId: string, role: MemberRole | null): Promise<boolean> {
  return db.transaction(async (tx) => {
    await lockOrganization(tx, organizationId);
    const [current] = await tx
      .select({ role: organizationMembers.role })
      .from(organizationMembers)
      .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.userId, userId)));
    if (!current) return false;
    if (memberRoleOf(current.role) === "owner" && role !== "owner") await assertAnotherOwner(tx, organizationId);
    const where = and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.userId, userId));
    if (role === null) await tx.delete(organizationMembers).where(where);
    else await tx.update(organizationMembers).set({ role }).where(where);
    return true;
  }, READ_COMMITTED);
}

/** The organization row's lock, which every change that could take away its last owner holds first. */
export async function lockOrganization(tx: Database, organizationId: string): Promise<void> {
  await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, organizationId)).for("update");
}

/** LastOwnerError unless the organization has an owner besides the one about to go (under lockOrganization). */
export async function assertAnotherOwner(tx: Database, organizationId: string): Promise<void> {
  const [owners] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(organizationMembers)
    .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.role, "owner")));
  if ((owners?.n ?? 0) <= 1) throw new LastOwnerError();
}
