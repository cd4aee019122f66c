/**
 * Lifecycle hooks end to end (docs/hooks.md), tool hooks and the dispatch caps: pre_tool_use and
 * post_tool_use around a tool (deny, input override), at most CHAT_HOOK_OBJECT_CONCURRENCY
 * dispatches per chat object, new submissions' share of it, and a submission whose hook times
 * out. Chats run in workerd against the fake model, and this project's CHAT_HOOK_URL points at the
 * test consumer (test/support/hook-consumer.ts), a Node server that checks every signature, records
 * every event and answers as each test scripts it for its own user (or holds it until the test
 * releases it). Test config (vitest.config.ts, project "hooks"): 3 s hook timeout, 2 dispatches per
 * chat object, 1 step per turn. The other hook files: sessions.test.ts, stop-and-failures.test.ts;
 * shared helpers in support/hooks.ts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { modelUsers, releaseChatsOf, userWithModel } from "../runner/support/model-user";
import {
  nonce,
  script,
  eventsOf,
  names,
  messagesOf,
  until,
  started,
  send,
  newProject,
  memoriesOf,
  results,
  release,
  statsOf,
  chatOf,
} from "./support/hooks";

afterAll(() => releaseChatsOf(modelUsers), 60_000);

describe("lifecycle hooks", () => {
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

  it("caps concurrent dispatches per chat object", async () => {
    const u = await userWithModel();
    const project = await newProject(u);
    // The consumer holds every pre_tool_use until the test lets it answer, so the dispatches in
    // flight are counted exactly: a third one let through by a broken cap would stay counted.
    await script(u, "pre_tool_use", { hold: true, body: {} });
    const calls = ["a", "b", "c", "d", "e"].map((name) => ({ name: "save_memory", args: { name, content: name } }));
    const id = await started(u, `/parallel ${JSON.stringify(calls)}`, { project_id: project });
    const pre = () => statsOf(u, "pre_tool_use");
    // Five calls' pre_tool_use at once, but CHAT_HOOK_OBJECT_CONCURRENCY=2 lets two through.
    await expect.poll(async () => (await pre()).in_flight).toBe(2);
    // Each answer frees one slot, which the next call takes.
    for (let answered = 1; answered <= 3; answered++) {
      await release(u, "pre_tool_use", 1);
      await expect.poll(async () => (await pre()).arrived).toBe(2 + answered);
      await expect.poll(async () => (await pre()).in_flight).toBe(2);
    }
    await release(u, "pre_tool_use", 2);
    await until(u, id, "waiting");
    expect(await pre()).toEqual({ in_flight: 0, max_in_flight: 2, arrived: 5 });
    expect((await memoriesOf(u, project)).map((m) => m.name).sort()).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("lets new submissions hold only their share of a chat object's cap", async () => {
    const u = await userWithModel();
    const id = await started(u, `/slow 60 ${Array.from({ length: 20 }, (_, i) => `t${i}`).join(" ")} ${nonce()}`);
    await script(u, "user_prompt_submit", { hold: true, body: {} });
    const prompts = () => statsOf(u, "user_prompt_submit");
    const creation = (await prompts()).arrived; // the chat's own first prompt
    // Three prompts at once: admission may hold 50% of CHAT_HOOK_OBJECT_CONCURRENCY=2, one slot.
    const sends = Promise.all(["q1", "q2", "q3"].map((text) => send(u, id, text)));
    await expect.poll(async () => (await prompts()).in_flight).toBe(1);
    for (let answered = 1; answered <= 2; answered++) {
      await release(u, "user_prompt_submit", 1);
      await expect.poll(async () => (await prompts()).arrived).toBe(creation + 1 + answered);
    }
    await release(u, "user_prompt_submit", 1);
    expect((await sends).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await prompts()).toEqual({ in_flight: 0, max_in_flight: 1, arrived: creation + 3 });
    await script(u, "user_prompt_submit", null);
    await until(u, id, "waiting");
  });

  it("fails a submission closed when its hook does not answer within CHAT_HOOK_TIMEOUT_MS, and writes nothing", async () => {
    const u = await userWithModel();
    const id = await started(u, `first ${nonce()}`);
    await until(u, id, "waiting");
    const before = await messagesOf(u, id);
    await script(u, "user_prompt_submit", { hold: true, body: {} });
    const sentAt = Date.now();
    const res = await send(u, id, `unanswered ${nonce()}`);
    const waitedMs = Date.now() - sentAt;
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ code: "hook_unavailable" });
    // The project's CHAT_HOOK_TIMEOUT_MS is 3 s; the dispatch reached the consumer and waited it out.
    expect(waitedMs).toBeGreaterThanOrEqual(3_000);
    expect((await statsOf(u, "user_prompt_submit")).in_flight).toBe(1);
    expect(await messagesOf(u, id)).toEqual(before);
    expect((await chatOf(u, id)).status).toBe("waiting");
    await release(u, "user_prompt_submit", 1);
    await script(u, "user_prompt_submit", null);
  });
});
