/**
 * `/organizations/{organization}/projects`: projects and their memories. Any member creates
 * projects of their own; a project is seen and changed by its owner and the organization's admins
 * (src/http/project-access.ts). Users read and delete memories here; only the agent saves them.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { deleteMemory, getMemory, listMemories } from "../memory/memories";
import { createProject, deleteProject, listProjects, renameProject } from "../projects/projects";
import { requireCaller } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { notFoundError, requireOrganization } from "../http/org-access";
import { isOrganizationAdmin, requireProject } from "../http/project-access";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";
import {
  CreateProjectBody,
  MemoryParams,
  memoryJson,
  OrgParams,
  ProjectMemorySchema,
  ProjectParams,
  ProjectSchema,
  projectJson,
  UpdateProjectBody,
} from "./project-schemas";

const BASE = "/{organization}/projects";
const ONE = `${BASE}/{project}`;

const createRouteDef = createRoute({
  method: "post",
  path: BASE,
  summary: "Create a project owned by the caller (members)",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { params: OrgParams, body: jsonBody(CreateProjectBody) },
  responses: { 201: jsonContent(ProjectSchema, "Created"), ...errorResponses(400, 401, 404, 413) },
});

const listRoute = createRoute({
  method: "get",
  path: BASE,
  summary: "The caller's projects in the organization (admins: every project), oldest first",
  middleware: [requestDb, requireCaller],
  request: { params: OrgParams },
  responses: { 200: jsonContent(z.array(ProjectSchema), "Projects"), ...errorResponses(400, 401, 404) },
});

const getRoute = createRoute({
  method: "get",
  path: ONE,
  summary: "Get a project (its owner or an organization admin)",
  middleware: [requestDb, requireCaller],
  request: { params: ProjectParams },
  responses: { 200: jsonContent(ProjectSchema, "The project"), ...errorResponses(400, 401, 404) },
});

const patchRoute = createRoute({
  method: "patch",
  path: ONE,
  summary: "Rename a project (its owner or an organization admin)",
  middleware: [requestDb, requireCaller, jsonBodyLimit],
  request: { params: ProjectParams, body: jsonBody(UpdateProjectBody) },
  responses: { 200: jsonContent(ProjectSchema, "Renamed"), ...errorResponses(400, 401, 404, 413) },
});

const deleteRouteDef = createRoute({
  method: "delete",
  path: ONE,
  summary: "Delete a project and its memories; its chats stay and leave the project (its owner or an organization admin)",
  middleware: [requestDb, requireCaller],
  request: { params: ProjectParams },
  responses: { 204: { description: "Deleted" }, ...errorResponses(400, 401, 404) },
});

const listMemoriesRoute = createRoute({
  method: "get",
  path: `${ONE}/memories`,
  summary: "The project's memories, by name",
  middleware: [requestDb, requireCaller],
  request: { params: ProjectParams },
  responses: { 200: jsonContent(z.array(ProjectMemorySchema), "Memories"), ...errorResponses(400, 401, 404) },
});

const getMemoryRoute = createRoute({
  method: "get",
  path: `${ONE}/memories/{name}`,
  summary: "One memory of the project, by name",
  middleware: [requestDb, requireCaller],
  request: { params: MemoryParams },
  responses: { 200: jsonContent(ProjectMemorySchema, "The memory"), ...errorResponses(400, 401, 404) },
});

const deleteMemoryRoute = createRoute({
  method: "delete",
  path: `${ONE}/memories/{name}`,
  summary: "Delete one memory of the project, by name",
  middleware: [requestDb, requireCaller],
  request: { params: MemoryParams },
  responses: { 204: { description: "Deleted" }, ...errorResponses(400, 401, 404) },
});

export const projects = createRouter()
  .openapi(createRouteDef, async (c) => {
    const { organization } = c.req.valid("param");
    const { name } = c.req.valid("json");
    await requireOrganization(c, organization, "member");
    const row = await createProject(c.var.db, { organizationId: organization, ownerId: c.var.caller.userId, name }, new Date());
    return c.json(projectJson(row), 201);
  })
  .openapi(listRoute, async (c) => {
    const { organization } = c.req.valid("param");
    await requireOrganization(c, organization, "member");
    const owner = (await isOrganizationAdmin(c, organization)) ? null : c.var.caller.userId;
    return c.json((await listProjects(c.var.db, organization, owner)).map(projectJson), 200);
  })
  .openapi(getRoute, async (c) => {
    const { organization, project } = c.req.valid("param");
    return c.json(projectJson(await requireProject(c, organization, project)), 200);
  })
  .openapi(patchRoute, async (c) => {
    const { organization, project } = c.req.valid("param");
    const { name } = c.req.valid("json");
    await requireProject(c, organization, project);
    const row = await renameProject(c.var.db, organization, project, name, new Date());
    if (!row) throw notFoundError("Project");
    return c.json(projectJson(row), 200);
  })
  .openapi(deleteRouteDef, async (c) => {
    const { organization, project } = c.req.valid("param");
    await requireProject(c, organization, project);
    if (!(await deleteProject(c.var.db, organization, project))) throw notFoundError("Project");
    return c.body(null, 204);
  })
  .openapi(listMemoriesRoute, async (c) => {
    const { organization, project } = c.req.valid("param");
    await requireProject(c, organization, project);
    return c.json((await listMemories(c.var.db, project)).map(memoryJson), 200);
  })
  .openapi(getMemoryRoute, async (c) => {
    const { organization, project, name } = c.req.valid("param");
    await requireProject(c, organization, project);
    const memory = await getMemory(c.var.db, project, name);
    if (!memory) throw notFoundError("Memory");
    return c.json(memoryJson(memory), 200);
  })
  .openapi(deleteMemoryRoute, async (c) => {
    const { organization, project, name } = c.req.valid("param");
    await requireProject(c, organization, project);
    if (!(await deleteMemory(c.var.db, project, name))) throw notFoundError("Memory");
    return c.body(null, 204);
  });
