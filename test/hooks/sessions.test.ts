/**
 * Lifecycle hooks end to end (docs/hooks.md), the session's own events: session_start and
 * user_prompt_submit (on create, send, queue and edit: deny, replace, context, a consumer that is down
 * or answers badly at submission) and pre_compact/post_compact around a /compact. Chats run in
 * workerd against the fake model, and this project's CHAT_HOOK_URL points at the test consumer
 * (test/support/hook-consumer.ts), a Node server that checks every signature, records every event
 * and answers as each test scripts it for its own user. Test config (vitest.config.ts, project
 * "hooks"): 3 s hook timeout, 2 dispatches per chat object, 1 step per turn. The other hook files:
 * tools-and-caps.test.ts, stop-and-failures.test.ts; shared helpers in support/hooks.ts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { api, expectJson } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithModel } from "../runner/support/model-user";
import type { Message } from "../runner/support/wire";
import { nonce, script, eventsOf, names, messagesOf, until, start, started, send, textOf, rowsOf } from "./support/hooks";

afterAll(() => releaseChatsOf(modelUsers), 60_000);

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

  it("stops reading an answer past 1 MiB, declared or streamed without end: 502 hook_invalid_response, nothing written", async () => {
    const u = await userWithModel();
    // One byte over src/hooks/dispatcher.ts HOOK_RESPONSE_MAX_BYTES, with its Content-Length.
    await script(u, "session_start", { status: 200, raw: JSON.stringify({ reason: "r".repeat(1024 * 1024 - 13) }) });
    expect((await expectJson<{ code: string }>(await start(u, "too much"), 502)).code).toBe("hook_invalid_response");
    // A body that never ends: the dispatch fails once the limit is read, long before the 3 s
    // hook timeout would have (which would answer hook_unavailable).
    await script(u, "session_start", { status: 200, endless: true });
    const started = Date.now();
    expect((await expectJson<{ code: string }>(await start(u, "endless"), 502)).code).toBe("hook_invalid_response");
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(await expectJson<unknown[]>(await api("/chats", { token: u.token }), 200)).toEqual([]);
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
    await expectJson(await api(`/chats/${id}/compact`, { method: "POST", token: u.token }), 200);
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
});
