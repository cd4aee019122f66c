/**
 * The memory tools in running chats: the fake model calls them over HTTP (`/tool`, `/parallel`),
 * the runner executes them against Postgres and commits their results, and the model sees the
 * tools it was offered (`/offered-tools` echoes names and descriptions back).
 */
import { afterAll, describe, expect, it } from "vitest";
import { saveMemory } from "../../src/memory/memories";
import { projectMemories } from "../../src/db/schema/projects";
import { api, expectJson, type TestUser, withDb } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithModel } from "./support/model-user";
import type { Message, Chat } from "./support/wire";

const nonce = () => crypto.randomUUID().slice(0, 8);

afterAll(() => releaseChatsOf(modelUsers), 60_000);

async function chatOf(user: TestUser, id: string): Promise<Chat> {
  return expectJson<Chat>(await api(`/chats/${id}`, { token: user.token }), 200);
}

async function messagesOf(user: TestUser, id: string): Promise<Message[]> {
  return (await expectJson<{ messages: Message[] }>(await api(`/chats/${id}/messages`, { token: user.token }), 200)).messages;
}

async function untilWaiting(user: TestUser, id: string): Promise<Chat> {
  await expect.poll(async () => (await chatOf(user, id)).status, { timeout: 30_000, interval: 100 }).toBe("waiting");
  return chatOf(user, id);
}

async function newProject(user: TestUser): Promise<string> {
  const res = await api(`/organizations/${user.organizationId}/projects`, { token: user.token, body: { name: `p-${nonce()}` } });
  return (await expectJson<{ id: string }>(res, 201)).id;
}

async function start(user: TestUser, text: string, projectId?: string): Promise<string> {
  const body = { content: [{ type: "text", text }], ...(projectId ? { project_id: projectId } : {}) };
  return (await expectJson<{ id: string }>(await api("/chats", { token: user.token, body }), 201)).id;
}

/** Sends a message to a waiting chat and waits for the turn it starts to finish; the turn's new messages. */
async function turn(user: TestUser, id: string, text: string): Promise<Message[]> {
  const before = (await messagesOf(user, id)).length;
  await expectJson(await api(`/chats/${id}/messages`, { token: user.token, body: { content: [{ type: "text", text }] } }), 200);
  await untilWaiting(user, id);
  return (await messagesOf(user, id)).slice(before);
}

const results = (messages: Message[]) => messages.flatMap((m) => m.content).filter((p) => p.type === "tool-result");
const textOf = (m: Message | undefined) =>
  (m?.content ?? [])
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");

async function memoriesOf(user: TestUser, projectId: string): Promise<{ name: string; content: string }[]> {
  return expectJson(await api(`/organizations/${user.organizationId}/projects/${projectId}/memories`, { token: user.token }), 200);
}

/** The memory family's tools among those offered (root chats get the subagent family too). */
async function offeredTools(user: TestUser, id: string): Promise<{ name: string; description: string }[]> {
  const messages = await turn(user, id, `/offered-tools ${nonce()}`);
  const offered = JSON.parse(textOf(messages.at(-1))) as { name: string; description: string }[];
  return offered.filter((t) => t.name.endsWith("_memory"));
}

describe("memory tools in a root chat in a project", () => {
  it("saves, reads and deletes memories through the model's tool calls; the index is in read_memory's description", async () => {
    const u = await userWithModel();
    const project = await newProject(u);
    const id = await start(
      u,
      `/tool save_memory ${JSON.stringify({ name: "build", content: "npm run check first\nthen commit" })}`,
      project,
    );
    await untilWaiting(u, id);
    const first = await messagesOf(u, id);
    expect(first.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(results(first)).toEqual([
      expect.objectContaining({
        tool_name: "save_memory",
        is_error: false,
        result: { name: "build", status: "created", memory_count: 1, max_memories: 200 },
      }),
    ]);
    expect(textOf(first.at(-1))).toContain("tool result received");
    expect(await memoriesOf(u, project)).toEqual([expect.objectContaining({ name: "build", content: "npm run check first\nthen commit" })]);

    const offered = await offeredTools(u, id);
    expect(offered.map((t) => t.name).sort()).toEqual(["delete_memory", "read_memory", "save_memory"]);
    const read = offered.find((t) => t.name === "read_memory")!;
    expect(read.description).toContain("- build: npm run check first");
    expect(read.description).not.toContain("then commit");

    const readTurn = await turn(u, id, `/tool read_memory {"name":"build"}`);
    expect(results(readTurn)).toEqual([
      expect.objectContaining({
        is_error: false,
        result: expect.objectContaining({ name: "build", content: "npm run check first\nthen commit" }),
      }),
    ]);

    const deleteTurn = await turn(u, id, `/tool delete_memory {"name":"build"}`);
    expect(results(deleteTurn)).toEqual([expect.objectContaining({ is_error: false, result: { name: "build", status: "deleted" } })]);
    expect(await memoriesOf(u, project)).toEqual([]);
    // The description follows the memories: the next step's index is empty.
    expect((await offeredTools(u, id)).find((t) => t.name === "read_memory")?.description).toContain("(none yet)");
  });

  it("commits the results of parallel calls in one tool message", async () => {
    const u = await userWithModel();
    const project = await newProject(u);
    const calls = [
      { name: "save_memory", args: { name: "a", content: "first" } },
      { name: "save_memory", args: { name: "b", content: "second" } },
      { name: "read_memory", args: { name: "missing" } },
    ];
    const id = await start(u, `/parallel ${JSON.stringify(calls)}`, project);
    const chat = await untilWaiting(u, id);
    expect(chat.last_error).toBeNull();
    const messages = await messagesOf(u, id);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    const callIds = messages[1]!.content.filter((p) => p.type === "tool-call").map((p) => p.tool_call_id);
    expect(callIds).toHaveLength(3);
    // One row, the results in call order: one CommitStep for the three of them.
    expect(messages[2]!.content.map((p) => [p.tool_call_id, p.is_error])).toEqual([
      [callIds[0], false],
      [callIds[1], false],
      [callIds[2], true],
    ]);
    expect((await memoriesOf(u, project)).map((m) => m.name)).toEqual(["a", "b"]);
  });

  it("carries the prune reminder near the cap and answers a save at the cap with an error result; the turn goes on", async () => {
    const u = await userWithModel();
    const project = await newProject(u);
    await withDb(async (db) => {
      await db
        .insert(projectMemories)
        .values(Array.from({ length: 199 }, (_, i) => ({ projectId: project, name: `m${i}`, content: `memory ${i}` })));
    });
    const id = await start(u, `/tool save_memory {"name":"last","content":"the 200th"}`, project);
    await untilWaiting(u, id);
    expect(results(await messagesOf(u, id))).toEqual([
      expect.objectContaining({
        is_error: false,
        result: expect.objectContaining({ memory_count: 200, reminder: expect.stringMatching(/prune/i) }),
      }),
    ]);

    const refused = await turn(u, id, `/tool save_memory {"name":"one-more","content":"x"}`);
    expect(results(refused)).toEqual([
      expect.objectContaining({ is_error: true, result: { error: expect.stringMatching(/maximum of 200.*same turn/s) } }),
    ]);
    expect(textOf(refused.at(-1))).toContain("tool result received");
    expect((await chatOf(u, id)).last_error).toBeNull();

    const overwrite = await turn(u, id, `/tool save_memory {"name":"m3","content":"folded"}`);
    expect(results(overwrite)).toEqual([
      expect.objectContaining({ is_error: false, result: expect.objectContaining({ status: "updated" }) }),
    ]);
    expect(await memoriesOf(u, project)).toHaveLength(200);
  });
});

describe("chats without memory", () => {
  it("a chat outside a project is offered no memory tools; a call to one is an error result and the turn continues", async () => {
    const u = await userWithModel();
    const project = await newProject(u);
    await withDb((db) => saveMemory(db, project, { name: "secret", content: "not for this chat" }, new Date()));
    const id = await start(u, `hello ${nonce()}`);
    await untilWaiting(u, id);
    expect(await offeredTools(u, id)).toEqual([]);

    const call = await turn(u, id, `/tool read_memory {"name":"secret"}`);
    expect(results(call)).toEqual([expect.objectContaining({ tool_name: "read_memory", is_error: true })]);
    expect(JSON.stringify(call)).not.toContain("not for this chat");
    expect(textOf(call.at(-1))).toContain("tool result received");
    expect((await chatOf(u, id)).last_error).toBeNull();
  });

  it("a chat whose project was deleted loses the tools", async () => {
    const u = await userWithModel();
    const project = await newProject(u);
    const id = await start(u, `hello ${nonce()}`, project);
    await untilWaiting(u, id);
    expect((await offeredTools(u, id)).map((t) => t.name)).toContain("save_memory");
    expect((await api(`/organizations/${u.organizationId}/projects/${project}`, { method: "DELETE", token: u.token })).status).toBe(204);
    expect(await offeredTools(u, id)).toEqual([]);
  });
});
