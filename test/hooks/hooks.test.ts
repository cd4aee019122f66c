/**
 * Lifecycle hooks end to end (docs/hooks.md): chats run in workerd against the fake model, and
 * this project's CHAT_HOOK_URL points at the test consumer (test/support/hook-consumer.ts), a Node
 * server that checks every signature, records every event and answers as each test scripts it for
 * its own user. Test config (vitest.config.ts, project "hooks"): 3 s hook timeout, 2 dispatches per
 * chat object, 1 step per turn.
 */
import { afterAll, describe, expect, inject, it } from "vitest";
import type { RecordedEvent, ScriptedAnswer } from "../support/hook-consumer";
import { api, expectJson, type TestUser, withDb } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithModel } from "../runner/support/model-user";
import { chatMessages } from "../../src/db/schema/chats";
import { eq } from "drizzle-orm";
import type { Message, Chat } from "../runner/support/wire";

const consumer = inject("hookConsumerUrl");
const nonce = () => crypto.randomUUID().slice(0, 8);

afterAll(() => releaseChatsOf(modelUsers), 60_000);

async function script(user: TestUser, event: string, answer: ScriptedAnswer | null): Promise<void> {
  const res = await fetch(`${consumer}/_script`, { method: "POST", body: JSON.stringify({ owner_id: user.id, event, answer }) });
  expect(res.status).toBe(200);
}

async function eventsOf(user: TestUser): Promise<RecordedEvent[]> {
  return (await fetch(`${consumer}/_events?owner_id=${user.id}`)).json();
}

const names = (events: RecordedEvent[]) => events.map((e) => e.envelope.event);

async function chatOf(user: TestUser, id: string): Promise<Chat> {
  return expectJson<Chat>(await api(`/chats/${id}`, { token: user.token }), 200);
}

async function messagesOf(user: TestUser, id: string): Promise<Message[]> {
  return (await expectJson<{ messages: Message[] }>(await api(`/chats/${id}/messages`, { token: user.token }), 200)).messages;
}

async function until(user: TestUser, id: string, status: string): Promise<Chat> {
  await expect.poll(async () => (await chatOf(user, id)).status, { timeout: 30_000, interval: 100 }).toBe(status);
  return chatOf(user, id);
}

async function start(user: TestUser, text: string, extra: Record<string, unknown> = {}): Promise<Response> {
  return api("/chats", { token: user.token, body: { content: [{ type: "text", text }], ...extra } });
}

async function started(user: TestUser, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  return (await expectJson<{ id: string }>(await start(user, text, extra), 201)).id;
}

async function send(user: TestUser, id: string, text: string): Promise<Response> {
  return api(`/chats/${id}/messages`, { token: user.token, body: { content: [{ type: "text", text }] } });
}

async function newProject(user: TestUser): Promise<string> {
  const res = await api(`/organizations/${user.organizationId}/projects`, { token: user.token, body: { name: `p-${nonce()}` } });
  return (await expectJson<{ id: string }>(res, 201)).id;
}

async function memoriesOf(user: TestUser, projectId: string): Promise<{ name: string; content: string }[]> {
  return expectJson(await api(`/organizations/${user.organizationId}/projects/${projectId}/memories`, { token: user.token }), 200);
}

const textOf = (m: Message | undefined) =>
  (m?.content ?? [])
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");
const results = (messages: Message[]) => messages.flatMap((m) => m.content).filter((p) => p.type === "tool-result");

/** Every row of the chat, model-only ones too (the API hides those). */
async function rowsOf(id: string) {
  return withDb((db) => db.select().from(chatMessages).where(eq(chatMessages.chatId, id)).orderBy(chatMessages.seq));
}

describe("lifecycle hooks", () => {
  it("sends session_start, user_prompt_submit and stop once each, signed, with the documented payloads", async () => {
    const u = await userWithModel();
    const text = `hello hooks ${nonce()}`;
    const id = await started(u, text);
    await until(u, id, "waiting");
    const events = await eventsOf(u);
    expect(names(events)).toEqual(["session_start", "user_prompt_submit", "stop"]);
    for (const e of events) {
      expect(e.signature_valid).toBe(true);
      expect(e.envelope.id).toMatch(/^evt_[0-9a-f]{32}$/);
      expect(e.headers["x-chat-hook-event-id"]).toBe(e.envelope.id);
      expect(e.headers["x-chat-hook-event"]).toBe(e.envelope.event);
      expect(e.headers["x-chat-hook-timestamp"]).toBe(e.envelope.sent_at);
      expect(e.envelope.chat).toEqual({ id, organization_id: u.organizationId, owner_id: u.id, parent_chat_id: null });
    }
    expect(events[0]!.envelope.data).toEqual({ source: "create" });
    expect(events[1]!.envelope.data).toEqual({ source: "create", prompt: text, content: [{ type: "text", text }] });
    expect(events[2]!.envelope.data).toEqual({ reason: "complete", stop_hook_active: false, last_assistant_text: text });
    expect(new Set(events.map((e) => e.envelope.id)).size).toBe(3);
  });

  it("denies a prompt: 403 hook_denied and nothing written", async () => {
    const u = await userWithModel();
    const id = await started(u, `first ${nonce()}`);
    await until(u, id, "waiting");
    await script(u, "user_prompt_submit", { body: { decision: "deny", reason: "no secrets" } });
    const res = await send(u, id, "my password is hunter2");
    const body = await expectJson<{ code: string; detail: string }>(res, 403);
    expect(body.code).toBe("hook_denied");
    expect(body.detail).toBe("no secrets");
    expect((await messagesOf(u, id)).map((m) => m.role)).toEqual(["user", "assistant"]);
    // A new chat is refused the same way and never exists.
    expect((await start(u, "hunter2")).status).toBe(403);
    const list = await expectJson<{ id: string }[]>(await api("/chats", { token: u.token }), 200);
    expect(list.map((c) => c.id)).toEqual([id]);
  });

  it("replaces a prompt and adds model-only and visible context after it", async () => {
    const u = await userWithModel();
    const replaced = `replaced ${nonce()}`;
    await script(u, "user_prompt_submit", {
      body: { updated_prompt: replaced, model_context: "policy: be brief", user_context: "noted by policy" },
    });
    const id = await started(u, "original prompt");
    await until(u, id, "waiting");
    const rows = await rowsOf(id);
    expect(rows.map((r) => [r.role, r.modelOnly])).toEqual([
      ["user", false],
      ["user", false],
      ["user", true],
      ["assistant", false],
    ]);
    expect(textOf(rows[0] as unknown as Message)).toBe(replaced);
    expect(textOf(rows[1] as unknown as Message)).toContain("noted by policy");
    expect(textOf(rows[2] as unknown as Message)).toContain("policy: be brief");
  });

  it("evaluates a queued prompt once, at submission, and carries its context into history at promotion", async () => {
    const u = await userWithModel();
    const id = await started(u, `/slow 60 ${Array.from({ length: 30 }, (_, i) => `t${i}`).join(" ")} ${nonce()}`);
    await script(u, "user_prompt_submit", {
      body: { updated_prompt: "queued, rewritten", model_context: "context for the queued prompt" },
    });
    const sent = await expectJson<{ queued: boolean }>(await send(u, id, "queued"), 200);
    expect(sent.queued).toBe(true);
    await script(u, "user_prompt_submit", null);
    await until(u, id, "waiting");
    const rows = await rowsOf(id);
    expect(rows.map((r) => [r.role, r.modelOnly])).toEqual([
      ["user", false],
      ["assistant", false],
      ["user", false],
      ["user", true],
      ["assistant", false],
    ]);
    expect(textOf(rows[2] as unknown as Message)).toBe("queued, rewritten");
    expect(textOf(rows[3] as unknown as Message)).toContain("context for the queued prompt");
    // Promotion fired nothing again: one user_prompt_submit per prompt.
    expect(names(await eventsOf(u)).filter((n) => n === "user_prompt_submit")).toHaveLength(2);
  });

  it("answers 502 hook_unavailable when the consumer is down at submission, and writes nothing", async () => {
    const u = await userWithModel();
    await script(u, "session_start", { close: true });
    const res = await start(u, "anyone there?");
    expect((await expectJson<{ code: string }>(res, 502)).code).toBe("hook_unavailable");
    await script(u, "session_start", { status: 200, raw: "not json" });
    expect((await expectJson<{ code: string }>(await start(u, "again"), 502)).code).toBe("hook_invalid_response");
    expect(await expectJson<unknown[]>(await api("/chats", { token: u.token }), 200)).toEqual([]);
  });

  it("fires pre_tool_use and post_tool_use around a tool; deny and input override work", async () => {
    const u = await userWithModel();
    const project = await newProject(u);
    // Override: the tool runs with the consumer's input.
    await script(u, "pre_tool_use", { body: { updated_input: { name: "from-hook", content: "rewritten" } } });
    const id = await started(u, `/tool save_memory ${JSON.stringify({ name: "from-model", content: "original" })}`, {
      project_id: project,
    });
    await until(u, id, "waiting");
    expect(await memoriesOf(u, project)).toEqual([expect.objectContaining({ name: "from-hook", content: "rewritten" })]);
    let events = await eventsOf(u);
    expect(names(events)).toEqual(["session_start", "user_prompt_submit", "pre_tool_use", "post_tool_use", "stop"]);
    const pre = events[2]!.envelope;
    const post = events[3]!.envelope;
    const call = (await messagesOf(u, id))[1]!.content.find((p) => p.type === "tool-call")!;
    expect(pre.data).toEqual({
      tool_call_id: call.tool_call_id,
      tool_name: "save_memory",
      input: { name: "from-model", content: "original" },
    });
    expect(post.data).toEqual({
      tool_call_id: call.tool_call_id,
      tool_name: "save_memory",
      input: { name: "from-hook", content: "rewritten" },
      result: expect.objectContaining({ name: "from-hook", status: "created" }),
      is_error: false,
    });

    // Deny: the tool never runs, the model reads the reason, post_tool_use does not fire.
    await script(u, "pre_tool_use", { body: { decision: "deny", reason: "read-only today" } });
    const before = (await eventsOf(u)).length;
    expect((await send(u, id, `/tool save_memory ${JSON.stringify({ name: "denied", content: "x" })}`)).status).toBe(200);
    await until(u, id, "waiting");
    expect((await memoriesOf(u, project)).map((m) => m.name)).toEqual(["from-hook"]);
    const denied = results(await messagesOf(u, id)).at(-1);
    expect(denied).toEqual(expect.objectContaining({ is_error: true, result: { error: "denied by policy: read-only today" } }));
    events = (await eventsOf(u)).slice(before);
    expect(names(events)).toEqual(["user_prompt_submit", "pre_tool_use", "stop"]);
  });

  it("rejects a decision on post_tool_use: the chat errors, and recovers once the consumer answers well", async () => {
    const u = await userWithModel();
    const project = await newProject(u);
    await script(u, "post_tool_use", { body: { decision: "allow" } });
    const id = await started(u, `/tool read_memory {"name":"x"}`, { project_id: project });
    const failed = await until(u, id, "error");
    expect(failed.last_error).toContain("invalid response to post_tool_use");
    expect(failed.last_error).toContain("post_tool_use does not accept a decision");
    await script(u, "post_tool_use", null);
    expect((await send(u, id, `retry ${nonce()}`)).status).toBe(200);
    const recovered = await until(u, id, "waiting");
    expect(recovered.last_error).toBeNull();
  });

  it("stops the turn with an error while the consumer is down, and recovers when it is back", async () => {
    const u = await userWithModel();
    const id = await started(u, `hi ${nonce()}`);
    await until(u, id, "waiting");
    await script(u, "stop", { close: true });
    expect((await send(u, id, "second")).status).toBe(200);
    const failed = await until(u, id, "error");
    expect(failed.last_error).toContain("could not be reached for stop");
    await script(u, "stop", null);
    expect((await send(u, id, "third")).status).toBe(200);
    await until(u, id, "waiting");
    expect((await messagesOf(u, id)).map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
  });

  it("continues a turn once when stop answers with model context", async () => {
    const u = await userWithModel();
    await script(u, "stop", { body: { model_context: "run the tests before you finish" } });
    const id = await started(u, `do it ${nonce()}`);
    await until(u, id, "waiting");
    const stops = (await eventsOf(u)).filter((e) => e.envelope.event === "stop");
    expect(stops.map((e) => e.envelope.data["stop_hook_active"])).toEqual([false, true]);
    expect(new Set(stops.map((e) => e.envelope.id)).size).toBe(2);
    const rows = await rowsOf(id);
    expect(rows.map((r) => [r.role, r.modelOnly])).toEqual([
      ["user", false],
      ["assistant", false],
      ["user", true],
      ["assistant", false],
    ]);
  });

  it("lets the stop hook take a turn one response past the step limit", async () => {
    const u = await userWithModel();
    const project = await newProject(u);
    await script(u, "stop", { body: { model_context: "summarize what the tool said" } });
    const id = await started(u, `/tool read_memory {"name":"x"}`, { project_id: project });
    await until(u, id, "waiting");
    const stops = (await eventsOf(u)).filter((e) => e.envelope.event === "stop").map((e) => e.envelope.data);
    // The tool call was the turn's one step: the limit finishes it, the stop hook continues it once.
    expect(stops).toEqual([
      { reason: "step_limit", stop_hook_active: false, last_assistant_text: "" },
      expect.objectContaining({ reason: "complete", stop_hook_active: true }),
    ]);
    expect((await rowsOf(id)).map((r) => [r.role, r.modelOnly])).toEqual([
      ["user", false],
      ["assistant", false],
      ["tool", false],
      ["user", true],
      ["assistant", false],
    ]);
  });

  it("starts a session on edit and evaluates the edited prompt", async () => {
    const u = await userWithModel();
    const id = await started(u, `first ${nonce()}`);
    await until(u, id, "waiting");
    const first = (await messagesOf(u, id))[0]!;
    const before = (await eventsOf(u)).length;
    await script(u, "user_prompt_submit", { body: { updated_prompt: "edited by policy" } });
    const res = await api(`/chats/${id}/messages/${first.id}`, {
      method: "PATCH",
      token: u.token,
      body: { content: [{ type: "text", text: "edited" }] },
    });
    expect(res.status).toBe(200);
    await until(u, id, "waiting");
    const events = (await eventsOf(u)).slice(before);
    expect(names(events)).toEqual(["session_start", "user_prompt_submit", "stop"]);
    expect(events[0]!.envelope.data).toEqual({ source: "edit" });
    expect(events[1]!.envelope.data).toMatchObject({ source: "edit", prompt: "edited" });
    expect((await messagesOf(u, id)).map(textOf)).toEqual(["edited by policy", "edited by policy"]);
  });

  it("sends pre_compact and post_compact around a compaction: guidance for the summary, context after it", async () => {
    const u = await userWithModel();
    const id = await started(u, `hello ${nonce()}`);
    await until(u, id, "waiting");
    await script(u, "pre_compact", { body: { model_context: "keep every name" } });
    await script(u, "post_compact", { body: { user_context: "compacted under policy" } });
    await expectJson(await api(`/chats/${id}/compact`, { method: "POST", token: u.token }), 202);
    await expect.poll(async () => names(await eventsOf(u)).filter((n) => n === "stop").length, { timeout: 30_000 }).toBe(2);
    await until(u, id, "waiting");
    const events = (await eventsOf(u)).filter((e) => e.envelope.event.endsWith("_compact"));
    expect(events.map((e) => e.envelope.data)).toEqual([
      { source: "manual" },
      // The fake summarizer echoes its last instruction: the pre_compact guidance reached it.
      { source: "manual", summary: "Guidance for this summary:\nkeep every name" },
    ]);
    const rows = await rowsOf(id);
    // The visible post_compact row joins the compaction's commit and leaves the history incomplete;
    // the turn would continue with a reply (test/unit/llm/decide.test.ts), but this project's
    // one-step limit was spent by the first reply, so it ends there, through the stop hook.
    expect(rows.at(-1)!.role).toBe("user");
    expect(textOf(rows.at(-1) as unknown as Message)).toContain("compacted under policy");
    const lastStop = (await eventsOf(u)).filter((e) => e.envelope.event === "stop").at(-1)!;
    expect(lastStop.envelope.data).toMatchObject({ reason: "step_limit" });
  });

  it("caps concurrent dispatches per chat object", async () => {
    const u = await userWithModel();
    const project = await newProject(u);
    await script(u, "pre_tool_use", { delay_ms: 400, body: {} });
    const calls = ["a", "b", "c", "d", "e"].map((name) => ({ name: "save_memory", args: { name, content: name } }));
    const id = await started(u, `/parallel ${JSON.stringify(calls)}`, { project_id: project });
    await until(u, id, "waiting");
    expect((await memoriesOf(u, project)).map((m) => m.name).sort()).toEqual(["a", "b", "c", "d", "e"]);
    const stats = (await (await fetch(`${consumer}/_stats?owner_id=${u.id}`)).json()) as { max_in_flight: number };
    // Five calls' pre_tool_use at once, but CHAT_HOOK_OBJECT_CONCURRENCY=2 lets two through at a time.
    expect(stats.max_in_flight).toBe(2);
  });

  it("lets new submissions hold only their share of a chat object's cap", async () => {
    const u = await userWithModel();
    const id = await started(u, `/slow 60 ${Array.from({ length: 20 }, (_, i) => `t${i}`).join(" ")} ${nonce()}`);
    await script(u, "user_prompt_submit", { delay_ms: 300, body: {} });
    // Three prompts at once: admission may hold 50% of CHAT_HOOK_OBJECT_CONCURRENCY=2, one slot.
    const sends = await Promise.all(["q1", "q2", "q3"].map((text) => send(u, id, text)));
    expect(sends.map((r) => r.status)).toEqual([200, 200, 200]);
    const stats = (await (await fetch(`${consumer}/_stats?owner_id=${u.id}`)).json()) as { max_in_flight: number };
    expect(stats.max_in_flight).toBe(1);
    await script(u, "user_prompt_submit", null);
    await until(u, id, "waiting");
  });
});
