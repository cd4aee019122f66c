/**
 * Errors of projects and their memory, each with a stable `code` for the one HTTP mapping
 * (src/http/errors.ts); the memory tools turn them into error tool results instead.
 */

import { constraintOf, isForeignKeyViolation } from "../db/pg-errors";

export type ProjectErrorCode = "project_unavailable" | "memory_cap_reached";

export abstract class ProjectError extends Error {
  abstract readonly code: ProjectErrorCode;
}

/**
 * A chat names a project it cannot be in: missing, in another organization, or not the caller's
 * (400, field `project_id`: the fix is the body the client sends).
 */
export class ProjectUnavailableError extends ProjectError {
  override name = "ProjectUnavailableError";
  override readonly code = "project_unavailable";
  constructor(readonly projectId: string) {
    super(`project ${projectId} does not exist in this organization or is not yours`);
  }
}

/** The chats -> projects foreign key (migrations/0005_projects_memory.sql). */
const CHAT_PROJECT_FK = "chats_project_id_organization_id_projects_fk";

/** A chat insert whose project was deleted after it was checked: the same answer as a missing project. */
export function isChatProjectGone(err: unknown): boolean {
  return isForeignKeyViolation(err) && constraintOf(err) === CHAT_PROJECT_FK;
}

/** A save of a new name when the project already holds the maximum (an error tool result). */
export class MemoryCapReachedError extends ProjectError {
  override name = "MemoryCapReachedError";
  override readonly code = "memory_cap_reached";
  constructor(
    readonly memoryName: string,
    message: string,
  ) {
    super(message);
  }
}
