/** The wire shapes of projects and their memories. */
import { z } from "@hono/zod-openapi";
import type { ProjectMemoryRow, ProjectRow } from "../db/schema/projects";
import { MAX_MEMORY_NAME_LENGTH, MEMORY_NAME_PATTERN } from "../memory/rules";

export const MAX_PROJECT_NAME_LENGTH = 256;

const projectName = z.string().trim().min(1).max(MAX_PROJECT_NAME_LENGTH);

export const CreateProjectBody = z.object({ name: projectName }).openapi("CreateProjectRequest");
export const UpdateProjectBody = z.object({ name: projectName }).openapi("UpdateProjectRequest");

export const ProjectSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    owner_id: z.uuid(),
    name: z.string(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .openapi("Project");

export const ProjectMemorySchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    content: z.string(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .openapi("ProjectMemory");

export const OrgParams = z.object({ organization: z.uuid() });
export const ProjectParams = z.object({ organization: z.uuid(), project: z.uuid() });
export const MemoryParams = z.object({
  organization: z.uuid(),
  project: z.uuid(),
  name: z.string().max(MAX_MEMORY_NAME_LENGTH).regex(MEMORY_NAME_PATTERN, "not a memory name"),
});

export function projectJson(row: ProjectRow): z.infer<typeof ProjectSchema> {
  return {
    id: row.id,
    organization_id: row.organizationId,
    owner_id: row.ownerId,
    name: row.name,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function memoryJson(row: ProjectMemoryRow): z.infer<typeof ProjectMemorySchema> {
  return {
    id: row.id,
    project_id: row.projectId,
    name: row.name,
    content: row.content,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
