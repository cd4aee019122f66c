/**
 * A project's memories. Saves and deletes run in a READ COMMITTED transaction that first takes
 * the project's advisory lock, so the count a save checks against the cap is the count it commits
 * against: two concurrent saves at 199 leave exactly 200.
 */
import { and, asc, count, eq, sql } from "drizzle-orm";
import { isAtCap, capReachedMessage } from "./rules";
import { LOCK_NAMESPACE, advisoryXactLock } from "../db/advisory-lock";
import { type Database, READ_COMMITTED } from "../db/database";
import { isForeignKeyViolation } from "../db/pg-errors";
import { type ProjectMemoryRow, projectMemories } from "../db/schema/projects";
import { MemoryCapReachedError, ProjectUnavailableError } from "../projects/errors";

export interface SavedMemory {
  memory: ProjectMemoryRow;
  /** False when the name existed and its content was replaced. */
  created: boolean;
  /** How many memories the project holds after the save. */
  count: number;
}

export function inProjectMemoryTx<T>(db: Database, projectId: string, fn: (tx: Database) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await advisoryXactLock(tx, LOCK_NAMESPACE.projectMemory, projectId);
    return fn(tx);
  }, READ_COMMITTED);
}

/** A memory as the index shows it: its name and (the start of) its first line, not its whole content. */
export interface MemoryIndexRow {
  name: string;
  content: string;
}

/** Enough of a first line for the index (src/memory/memory-index.ts cuts it shorter). */
const INDEX_HEAD_CHARS = 200;

/** Name order, like listMemories; reads a bounded head of each memory, not 200 whole contents. */
export async function listMemoryIndex(db: Database, projectId: string): Promise<MemoryIndexRow[]> {
  return db
    .select({
      name: projectMemories.name,
      content: sql<string>`left(split_part(ltrim(${projectMemories.content}, E' \t\r\n'), E'\n', 1), ${INDEX_HEAD_CHARS})`,
    })
    .from(projectMemories)
    .where(eq(projectMemories.projectId, projectId))
    .orderBy(asc(projectMemories.name));
}

/** Name order: the index lists them so, and its text changes only where memories change. */
export async function listMemories(db: Database, projectId: string): Promise<ProjectMemoryRow[]> {
  return db.select().from(projectMemories).where(eq(projectMemories.projectId, projectId)).orderBy(asc(projectMemories.name));
}

export async function getMemory(db: Database, projectId: string, name: string): Promise<ProjectMemoryRow | null> {
  const [row] = await db
    .select()
    .from(projectMemories)
    .where(and(eq(projectMemories.projectId, projectId), eq(projectMemories.name, name)));
  return row ?? null;
}

/**
 * Creates the memory or replaces the content of the one with this name. At the cap a new name is
 * refused (MemoryCapReachedError); replacing an existing name always works. A project deleted
 * meanwhile is ProjectUnavailableError.
 */
export async function saveMemory(
  db: Database,
  projectId: string,
  input: { name: string; content: string },
  now: Date,
): Promise<SavedMemory> {
  try {
    return await inProjectMemoryTx(db, projectId, async (tx) => {
      const [updated] = await tx
        .update(projectMemories)
        .set({ content: input.content, updatedAt: now })
        .where(and(eq(projectMemories.projectId, projectId), eq(projectMemories.name, input.name)))
        .returning();
      const held = await countMemories(tx, projectId);
      if (updated) return { memory: updated, created: false, count: held };
      if (isAtCap(held)) throw new MemoryCapReachedError(input.name, capReachedMessage(input.name));
      const [inserted] = await tx
        .insert(projectMemories)
        .values({ projectId, name: input.name, content: input.content, createdAt: now, updatedAt: now })
        .returning();
      if (!inserted) throw new Error("INSERT ... RETURNING gave no memory row");
      return { memory: inserted, created: true, count: held + 1 };
    });
  } catch (err) {
    if (isForeignKeyViolation(err)) throw new ProjectUnavailableError(projectId);
    throw err;
  }
}

/** The deleted memory, or null when the project holds none by that name. */
export async function deleteMemory(db: Database, projectId: string, name: string): Promise<ProjectMemoryRow | null> {
  return inProjectMemoryTx(db, projectId, async (tx) => {
    const [deleted] = await tx
      .delete(projectMemories)
      .where(and(eq(projectMemories.projectId, projectId), eq(projectMemories.name, name)))
      .returning();
    return deleted ?? null;
  });
}

export async function countMemories(db: Database, projectId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(projectMemories).where(eq(projectMemories.projectId, projectId));
  return row?.n ?? 0;
}
