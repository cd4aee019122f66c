/**
 * Project memory on a real Postgres: saves and deletes under the project's advisory lock, the
 * 200 cap and the 180 reminder, concurrency at the cap, what deleting a project does, and the
 * memory tool family as the runner assembles it (root chats in a project only).
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isChatProjectGone, MemoryCapReachedError, ProjectUnavailableError } from "../../src/projects/errors";
import { countMemories, deleteMemory, getMemory, listMemories, saveMemory } from "../../src/memory/memories";
import { createProject, deleteProject } from "../../src/projects/projects";
import { organizations, users } from "../../src/db/schema/auth";
import { projectMemories } from "../../src/db/schema/projects";
import type { ChatRow } from "../../src/db/schema/chats";
import { executeLocalTools } from "../../src/llm/local-tools";
import { MAX_MEMORIES, PRUNE_REMINDER_FROM } from "../../src/memory/rules";
import { memoryToolFamily } from "../../src/tools/memory";
import { productionToolsFor } from "../../src/tools/production";
import { createOwnDatabase, type OwnDatabase } from "./support/own-database";

let own: OwnDatabase;
beforeAll(async () => {
  own = await createOwnDatabase("project_memory");
});
afterAll(async () => own?.drop());

const now = () => new Date();

async function newOwner(): Promise<{ organizationId: string; userId: string }> {
  const tag = crypto.randomUUID().slice(0, 12);
  const [org] = await own.db
    .insert(organizations)
    .values({ name: `org-${tag}` })
    .returning();
  const [user] = await own.db
    .insert(users)
    .values({ email: `${tag}@example.com`, username: `u-${tag}` })
    .returning();
  return { organizationId: org!.id, userId: user!.id };
}

async function newProject(): Promise<{ projectId: string; organizationId: string; userId: string }> {
  const owner = await newOwner();
  const project = await createProject(own.db, { organizationId: owner.organizationId, ownerId: owner.userId, name: "p" }, now());
  return { projectId: project.id, ...owner };
}

/** `n` memories written directly (the setup, not the behaviour under test). */
async function fill(projectId: string, n: number): Promise<void> {
  if (n === 0) return;
  await own.db.insert(projectMemories).values(Array.from({ length: n }, (_, i) => ({ projectId, name: `m${i}`, content: `memory ${i}` })));
}

async function insertChat(input: {
  organizationId: string;
  userId: string;
  projectId: string | null;
  parentChatId?: string;
}): Promise<string> {
  const { rows } = await own.pool.query<{ id: string }>(
    `INSERT INTO chats (organization_id, owner_id, status, title, title_source, project_id, parent_chat_id, root_chat_id)
     VALUES ($1, $2, 'waiting', 't', 'user', $3, $4, $4) RETURNING id`,
    [input.organizationId, input.userId, input.projectId, input.parentChatId ?? null],
  );
  return rows[0]!.id;
}

function toolChat(c: { organizationId: string; userId: string; projectId: string | null; parentChatId?: string | null }) {
  return {
    id: crypto.randomUUID(),
    organizationId: c.organizationId,
    ownerId: c.userId,
    parentChatId: c.parentChatId ?? null,
    projectId: c.projectId,
  } satisfies Pick<ChatRow, "id" | "organizationId" | "ownerId" | "parentChatId" | "projectId">;
}

describe("saving and deleting memories", () => {
  it("creates, replaces by name and deletes; names are unique per project", async () => {
    const { projectId } = await newProject();
    const other = await newProject();
    const first = await saveMemory(own.db, projectId, { name: "build", content: "npm run build" }, now());
    expect(first).toMatchObject({ created: true, count: 1 });
    const again = await saveMemory(own.db, projectId, { name: "build", content: "npm run check" }, now());
    expect(again).toMatchObject({ created: false, count: 1 });
    expect(again.memory.id).toBe(first.memory.id);
    await saveMemory(own.db, other.projectId, { name: "build", content: "elsewhere" }, now());

    expect((await getMemory(own.db, projectId, "build"))?.content).toBe("npm run check");
    expect((await listMemories(own.db, other.projectId)).map((m) => m.content)).toEqual(["elsewhere"]);
    expect(await deleteMemory(own.db, projectId, "build")).not.toBeNull();
    expect(await deleteMemory(own.db, projectId, "build")).toBeNull();
    expect(await countMemories(own.db, projectId)).toBe(0);
    expect(await countMemories(own.db, other.projectId)).toBe(1);
  });

  it(`refuses a new name at ${MAX_MEMORIES} but replaces an existing one`, async () => {
    const { projectId } = await newProject();
    await fill(projectId, MAX_MEMORIES);
    await expect(saveMemory(own.db, projectId, { name: "one-more", content: "x" }, now())).rejects.toBeInstanceOf(MemoryCapReachedError);
    const replaced = await saveMemory(own.db, projectId, { name: "m7", content: "folded in" }, now());
    expect(replaced).toMatchObject({ created: false, count: MAX_MEMORIES });
    expect(await countMemories(own.db, projectId)).toBe(MAX_MEMORIES);
  });

  it(`two concurrent saves of new names at ${MAX_MEMORIES - 1} leave exactly ${MAX_MEMORIES}`, async () => {
    for (let round = 0; round < 3; round++) {
      const { projectId } = await newProject();
      await fill(projectId, MAX_MEMORIES - 1);
      const results = await Promise.allSettled([
        saveMemory(own.db, projectId, { name: "left", content: "a" }, now()),
        saveMemory(own.db, projectId, { name: "right", content: "b" }, now()),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const rejected = results.filter((r) => r.status === "rejected");
      expect(rejected).toHaveLength(1);
      expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(MemoryCapReachedError);
      expect(await countMemories(own.db, projectId)).toBe(MAX_MEMORIES);
    }
  });

  it("ten concurrent saves of new names at 195 leave exactly 200: five saved, five refused", async () => {
    const { projectId } = await newProject();
    await fill(projectId, 195);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => saveMemory(own.db, projectId, { name: `new-${i}`, content: "x" }, now())),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
    expect(
      results.filter((r) => r.status === "rejected" && (r as PromiseRejectedResult).reason instanceof MemoryCapReachedError),
    ).toHaveLength(5);
    expect(await countMemories(own.db, projectId)).toBe(MAX_MEMORIES);
  });

  it("a save into a project deleted meanwhile is ProjectUnavailableError", async () => {
    const { projectId, organizationId } = await newProject();
    await deleteProject(own.db, organizationId, projectId);
    await expect(saveMemory(own.db, projectId, { name: "late", content: "x" }, now())).rejects.toBeInstanceOf(ProjectUnavailableError);
  });
});

describe("deleting a project", () => {
  it("deletes its memories and clears its chats' project_id, and nothing else of the chat", async () => {
    const { projectId, organizationId, userId } = await newProject();
    await fill(projectId, 3);
    const chatId = await insertChat({ organizationId, userId, projectId });
    const before = (await own.pool.query(`SELECT * FROM chats WHERE id = $1`, [chatId])).rows[0];
    expect(await deleteProject(own.db, organizationId, projectId)).toBe(true);
    const after = (await own.pool.query(`SELECT * FROM chats WHERE id = $1`, [chatId])).rows[0];
    expect(after).toEqual({ ...before, project_id: null });
    expect(await countMemories(own.db, projectId)).toBe(0);
  });

  it("the database keeps a chat's project in the chat's organization", async () => {
    const { projectId } = await newProject();
    const stranger = await newOwner();
    const refused = await insertChat({ ...stranger, projectId }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: "23503" });
    // What the HTTP layer answers 400 on project_id (a project deleted between check and insert).
    expect(isChatProjectGone(refused)).toBe(true);
  });
});

describe("the memory tool family", () => {
  it("offers read_memory, save_memory and delete_memory to a root chat in a project, with the live index in read_memory", async () => {
    const p = await newProject();
    await saveMemory(own.db, p.projectId, { name: "style", content: "Tabs, not spaces.\nAlways." }, now());
    await saveMemory(own.db, p.projectId, { name: "lead", content: " \n\n  After blank lines.\nmore" }, now());
    await saveMemory(own.db, p.projectId, { name: "long", content: "z".repeat(5000) }, now());
    const family = await memoryToolFamily({ db: own.db, now }).forChat(toolChat(p));
    expect(family?.tools.map((t) => t.name)).toEqual(["read_memory", "save_memory", "delete_memory"]);
    const read = family!.tools.find((t) => t.name === "read_memory")!;
    expect(read.description).toContain("- style: Tabs, not spaces.");
    expect(read.description).not.toContain("Always.");
    expect(read.description).toContain("- lead: After blank lines.\n");
    expect(read.description).toContain(`- long: ${"z".repeat(99)}…`);
    // Name order.
    expect(read.description.indexOf("- lead:")).toBeLessThan(read.description.indexOf("- long:"));
    expect(read.description.indexOf("- long:")).toBeLessThan(read.description.indexOf("- style:"));
    expect(family?.guidance).toMatch(/Project memory/);
    // The guidance is static: it names no memory.
    expect(family?.guidance).not.toContain("style");
  });

  it("offers nothing to a subagent chat or a chat outside a project", async () => {
    const p = await newProject();
    const tools = productionToolsFor({ db: own.db, now });
    expect(await memoryToolFamily({ db: own.db, now }).forChat(toolChat({ ...p, parentChatId: crypto.randomUUID() }))).toBeNull();
    expect(await memoryToolFamily({ db: own.db, now }).forChat(toolChat({ ...p, projectId: null }))).toBeNull();
    const none = await tools(toolChat({ ...p, projectId: null }));
    expect([...none.registry.keys()]).toEqual([]);
    expect(none.guidance).toEqual([]);
    const root = await tools(toolChat(p));
    expect([...root.registry.keys()]).toEqual(["read_memory", "save_memory", "delete_memory"]);
    expect(root.guidance).toHaveLength(1);
  });

  it(`runs the tools: results, the reminder from ${PRUNE_REMINDER_FROM}, the cap as an error result, bad arguments as an error result`, async () => {
    const p = await newProject();
    await fill(p.projectId, PRUNE_REMINDER_FROM - 2);
    const registry = (await productionToolsFor({ db: own.db, now })(toolChat(p))).registry;
    const run = async (name: string, args: unknown) => {
      const [result] = await executeLocalTools(
        [{ type: "tool-call", tool_call_id: crypto.randomUUID(), tool_name: name, args }],
        registry,
        {
          abortSignal: new AbortController().signal,
        },
      );
      return result!;
    };

    const below = await run("save_memory", { name: "a", content: "first" });
    expect(below).toMatchObject({ is_error: false, result: { name: "a", status: "created", memory_count: PRUNE_REMINDER_FROM - 1 } });
    expect(below.result).not.toHaveProperty("reminder");
    const at = await run("save_memory", { name: "b", content: "second" });
    expect(at).toMatchObject({ is_error: false, result: { memory_count: PRUNE_REMINDER_FROM, reminder: expect.stringMatching(/prune/i) } });
    const update = await run("save_memory", { name: "a", content: "first, revised" });
    expect(update).toMatchObject({ is_error: false, result: { status: "updated", reminder: expect.any(String) } });

    expect(await run("read_memory", { name: "a" })).toMatchObject({ is_error: false, result: { name: "a", content: "first, revised" } });
    expect(await run("read_memory", { name: "zzz" })).toMatchObject({
      is_error: true,
      result: { error: expect.stringMatching(/no memory named/) },
    });
    expect(await run("save_memory", { name: "has space", content: "x" })).toMatchObject({
      is_error: true,
      result: { error: expect.stringMatching(/invalid arguments/) },
    });
    expect(await run("delete_memory", { name: "b" })).toMatchObject({ is_error: false, result: { name: "b", status: "deleted" } });

    await fill2(p.projectId, MAX_MEMORIES - (await countMemories(own.db, p.projectId)));
    const refused = await run("save_memory", { name: "over", content: "x" });
    expect(refused.is_error).toBe(true);
    expect((refused.result as { error: string }).error).toMatch(/maximum of 200 memories.*same turn.*delete_memory/s);
    expect(await countMemories(own.db, p.projectId)).toBe(MAX_MEMORIES);
  });
});

/** More filler with names that cannot clash with `fill`'s. */
async function fill2(projectId: string, n: number): Promise<void> {
  if (n <= 0) return;
  await own.db.insert(projectMemories).values(Array.from({ length: n }, (_, i) => ({ projectId, name: `extra${i}`, content: "x" })));
}
