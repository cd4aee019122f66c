/**
 * Projects: organization-scoped, owned by one user. Who may see or change one is decided by the
 * HTTP layer (src/http/project-access.ts); these functions only scope by organization.
 */
import { and, asc, eq } from "drizzle-orm";
import type { Database } from "../db/database";
import { type ProjectRow, projects } from "../db/schema/projects";

export async function createProject(
  db: Database,
  input: { organizationId: string; ownerId: string; name: string },
  now: Date,
): Promise<ProjectRow> {
  const [row] = await db
    .insert(projects)
    .values({ organizationId: input.organizationId, ownerId: input.ownerId, name: input.name, createdAt: now, updatedAt: now })
    .returning();
  if (!row) throw new Error("INSERT ... RETURNING gave no project row");
  return row;
}

/** Oldest first; `ownerId` null lists every project of the organization. */
export async function listProjects(db: Database, organizationId: string, ownerId: string | null): Promise<ProjectRow[]> {
  const where =
    ownerId === null
      ? eq(projects.organizationId, organizationId)
      : and(eq(projects.organizationId, organizationId), eq(projects.ownerId, ownerId));
  return db.select().from(projects).where(where).orderBy(asc(projects.createdAt), asc(projects.id));
}

export async function getProject(db: Database, organizationId: string, id: string): Promise<ProjectRow | null> {
  const [row] = await db
    .select()
    .from(projects)
    .where(and(eq(projects.organizationId, organizationId), eq(projects.id, id)));
  return row ?? null;
}

/** Null when the project does not exist (any more). */
export async function renameProject(db: Database, organizationId: string, id: string, name: string, now: Date): Promise<ProjectRow | null> {
  const [row] = await db
    .update(projects)
    .set({ name, updatedAt: now })
    .where(and(eq(projects.organizationId, organizationId), eq(projects.id, id)))
    .returning();
  return row ?? null;
}

/**
 * Its memories go with it (cascade); its chats stay and leave the project (their project_id is
 * cleared by the foreign key), so they are no longer offered the memory tools.
 */
export async function deleteProject(db: Database, organizationId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(projects)
    .where(and(eq(projects.organizationId, organizationId), eq(projects.id, id)))
    .returning({ id: projects.id });
  return deleted.length > 0;
}
