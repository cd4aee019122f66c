/**
 * A chat created in a project: the project must exist in the chat's organization and be the
 * caller's own (projects are private to their owner; see docs/tools.md). Anything else is the
 * same 400 on `project_id`, so a caller learns nothing about other users' projects.
 */
import { ProjectUnavailableError } from "../projects/errors";
import { getProject } from "../projects/projects";
import type { CommandContext } from "./context";

export async function checkProjectChoice(
  ctx: CommandContext,
  input: { organizationId: string; callerId: string; projectId?: string | null | undefined },
): Promise<void> {
  if (input.projectId === undefined || input.projectId === null) return;
  const project = await getProject(ctx.db, input.organizationId, input.projectId);
  if (!project || project.ownerId !== input.callerId) throw new ProjectUnavailableError(input.projectId);
}
