/**
 * `/organizations/{org}/projects` and their memories over HTTP, and `project_id` on chat create:
 * members create their own projects; a project is seen and changed by its owner and the
 * organization's admins only (others get 404); memories are listed and deleted by name.
 */
import { describe, expect, it } from "vitest";
import { saveMemory } from "../../src/memory/memories";
import { api, createOrg, createTestUser, expectJson, type TestUser, withDb } from "./support/accounts";

interface ProjectJson {
  id: string;
  organization_id: string;
  owner_id: string;
  name: string;
  created_at: string;
  updated_at: string;
}
interface MemoryJson {
  id: string;
  project_id: string;
  name: string;
  content: string;
}
interface ErrorJson {
  code: string;
  message: string;
  validations?: { field: string; detail: string }[];
}

async function setup() {
  const org = await createOrg();
  const owner = await createTestUser({ organizationId: org, role: "member" });
  const member = await createTestUser({ organizationId: org, role: "member" });
  const admin = await createTestUser({ organizationId: org, role: "admin" });
  const outsider = await createTestUser();
  return { org, owner, member, admin, outsider, path: `/organizations/${org}/projects` };
}

async function create(path: string, user: TestUser, name = "Website"): Promise<ProjectJson> {
  return expectJson<ProjectJson>(await api(path, { token: user.token, body: { name } }), 201);
}

async function save(projectId: string, name: string, content: string): Promise<void> {
  await withDb((db) => saveMemory(db, projectId, { name, content }, new Date()));
}

describe("projects", () => {
  it("a member creates, lists, reads, renames and deletes their own project", async () => {
    const s = await setup();
    const created = await create(s.path, s.owner, "  Website  ");
    expect(created).toMatchObject({ organization_id: s.org, owner_id: s.owner.id, name: "Website" });
    expect(await expectJson<ProjectJson[]>(await api(s.path, { token: s.owner.token }), 200)).toEqual([created]);
    expect(await expectJson<ProjectJson>(await api(`${s.path}/${created.id}`, { token: s.owner.token }), 200)).toEqual(created);

    const renamed = await expectJson<ProjectJson>(
      await api(`${s.path}/${created.id}`, { method: "PATCH", token: s.owner.token, body: { name: "Site" } }),
      200,
    );
    expect(renamed).toMatchObject({ id: created.id, name: "Site" });
    expect(await api(`${s.path}/${created.id}`, { method: "DELETE", token: s.owner.token })).toHaveProperty("status", 204);
    expect((await api(`${s.path}/${created.id}`, { token: s.owner.token })).status).toBe(404);
    expect((await api(`${s.path}/${created.id}`, { method: "DELETE", token: s.owner.token })).status).toBe(404);
  });

  it("hides a project from other members and other organizations (404) and lets an admin manage it", async () => {
    const s = await setup();
    const project = await create(s.path, s.owner);
    const mine = await create(s.path, s.member, "Mine");
    for (const [user, path] of [
      [s.member, `${s.path}/${project.id}`],
      [s.outsider, `${s.path}/${project.id}`],
      // The project under another organization's path is not found either.
      [s.outsider, `/organizations/${s.outsider.organizationId}/projects/${project.id}`],
    ] as const) {
      for (const init of [{}, { method: "PATCH", body: { name: "x" } }, { method: "DELETE" }]) {
        const res = await api(path, { token: user.token, ...init });
        expect(res.status).toBe(404);
        expect((await res.json<ErrorJson>()).code).toBe("not_found");
      }
      expect((await api(`${path}/memories`, { token: user.token })).status).toBe(404);
    }
    expect((await api(s.path, { token: s.outsider.token })).status).toBe(404);
    expect(await expectJson<ProjectJson[]>(await api(s.path, { token: s.member.token }), 200)).toEqual([mine]);
    expect((await expectJson<ProjectJson[]>(await api(s.path, { token: s.admin.token }), 200)).map((p) => p.id).sort()).toEqual(
      [project.id, mine.id].sort(),
    );
    await expectJson(await api(`${s.path}/${project.id}`, { method: "PATCH", token: s.admin.token, body: { name: "By admin" } }), 200);
    expect((await api(`${s.path}/${project.id}`, { method: "DELETE", token: s.admin.token })).status).toBe(204);
  });

  it("rejects bad input with validation_failed and writes nothing", async () => {
    const s = await setup();
    for (const body of [{}, { name: "" }, { name: "   " }, { name: "x".repeat(257) }, { name: 3 }]) {
      const res = await api(s.path, { token: s.owner.token, body });
      expect(res.status).toBe(400);
      expect((await res.json<ErrorJson>()).code).toBe("validation_failed");
    }
    expect((await api(`/organizations/not-a-uuid/projects`, { token: s.owner.token })).status).toBe(400);
    expect((await api(`${s.path}/not-a-uuid`, { token: s.owner.token })).status).toBe(400);
    expect(await expectJson<ProjectJson[]>(await api(s.path, { token: s.owner.token }), 200)).toEqual([]);
    expect((await api(s.path, { body: { name: "anon" } })).status).toBe(401);
  });
});

describe("project memories over HTTP", () => {
  it("lists a project's memories by name, reads one and deletes one by name", async () => {
    const s = await setup();
    const project = await create(s.path, s.owner);
    await save(project.id, "style", "Tabs.");
    await save(project.id, "build", "npm run check");
    const base = `${s.path}/${project.id}/memories`;
    const listed = await expectJson<MemoryJson[]>(await api(base, { token: s.owner.token }), 200);
    expect(listed.map((m) => [m.name, m.content, m.project_id])).toEqual([
      ["build", "npm run check", project.id],
      ["style", "Tabs.", project.id],
    ]);
    expect(await expectJson<MemoryJson>(await api(`${base}/style`, { token: s.owner.token }), 200)).toMatchObject({ content: "Tabs." });
    expect((await api(`${base}/style`, { method: "DELETE", token: s.owner.token })).status).toBe(204);
    expect((await api(`${base}/style`, { method: "DELETE", token: s.owner.token })).status).toBe(404);
    expect((await api(`${base}/style`, { token: s.owner.token })).status).toBe(404);
    expect((await api(`${base}/bad%20name`, { method: "DELETE", token: s.owner.token })).status).toBe(400);
    expect((await api(`${base}/build`, { method: "DELETE", token: s.member.token })).status).toBe(404);
    expect((await expectJson<MemoryJson[]>(await api(base, { token: s.admin.token }), 200)).map((m) => m.name)).toEqual(["build"]);
  });

  it("deleting a project deletes its memories and takes its chats out of it", async () => {
    const s = await setup();
    const project = await create(s.path, s.owner);
    await save(project.id, "keep", "x");
    const chat = await expectJson<{ id: string; project_id: string | null }>(
      await api("/chats", { token: s.owner.token, body: { organization_id: s.org, content: [], project_id: project.id } }),
      201,
    );
    expect(chat.project_id).toBe(project.id);
    expect((await api(`${s.path}/${project.id}`, { method: "DELETE", token: s.owner.token })).status).toBe(204);
    const after = await expectJson<{ project_id: string | null }>(await api(`/chats/${chat.id}`, { token: s.owner.token }), 200);
    expect(after.project_id).toBeNull();
    const left = await withDb(
      async (db) => (await db.$client.query(`SELECT count(*)::int AS n FROM project_memories WHERE project_id = $1`, [project.id])).rows[0],
    );
    expect(left).toEqual({ n: 0 });
  });
});

describe("project_id on chat create", () => {
  it("accepts the caller's own project and refuses any other with 400 on project_id, creating nothing", async () => {
    const s = await setup();
    const own = await create(s.path, s.owner);
    const othersProject = await create(s.path, s.member);
    const foreignProject = await create(`/organizations/${s.outsider.organizationId}/projects`, s.outsider);
    const body = (projectId: string) => ({ organization_id: s.org, content: [{ type: "text", text: "hi" }], project_id: projectId });

    const ok = await expectJson<{ project_id: string }>(await api("/chats", { token: s.owner.token, body: body(own.id) }), 201);
    expect(ok.project_id).toBe(own.id);

    const before = await expectJson<unknown[]>(await api("/chats", { token: s.owner.token }), 200);
    for (const projectId of [othersProject.id, foreignProject.id, crypto.randomUUID()]) {
      const res = await api("/chats", { token: s.owner.token, body: body(projectId) });
      expect(res.status).toBe(400);
      const error = await res.json<ErrorJson>();
      expect(error.code).toBe("validation_failed");
      expect(error.validations?.[0]?.field).toBe("project_id");
    }
    // An admin may manage a member's project but not put chats in it: its memory is the owner's.
    expect((await api("/chats", { token: s.admin.token, body: body(own.id) })).status).toBe(400);
    expect(await expectJson<unknown[]>(await api("/chats", { token: s.owner.token }), 200)).toHaveLength(before.length);
  });
});
