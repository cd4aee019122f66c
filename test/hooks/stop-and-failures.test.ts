/**
 * Lifecycle hooks end to end (docs/hooks.md), the end of a turn: the stop hook (continuing a turn,
 * one response past the step limit) and a turn that fails on the consumer (down at stop, a decision
 * on post_tool_use) and recovers. Chats run in workerd against the fake model, and this project's
 * CHAT_HOOK_URL points at the test consumer (test/support/hook-consumer.ts), a Node server that
 * checks every signature, records every event and answers as each test scripts it for its own user.
 * Test config (vitest.config.ts, project "hooks"): 3 s hook timeout, 2 dispatches per chat object,
 * 1 step per turn. The other hook files: sessions.test.ts, tools-and-caps.test.ts; shared helpers
 * in support/hooks.ts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { modelUsers, releaseChatsOf, userWithModel } from "../runner/support/model-user";
import { nonce, script, eventsOf, messagesOf, until, started, send, newProject, rowsOf } from "./support/hooks";

afterAll(() => releaseChatsOf(modelUsers), 60_000);

describe("lifecycle hooks", () => {
  it("rejects a decision on post_tool_use: the chat errors, and recovers once the consumer answers well", async () => {
    const u = await userWithModel();
    const project = await newProject(u);
    await script(u, "post_tool_use", { body: { decision: "allow" } });
    const id = await started(u, `/tool read_memory {"name":"x"}`, { project_id: project });
    const failed = await until(u, id, "error");
    expect(failed.last_error?.message).toContain("invalid response to post_tool_use");
    expect(failed.last_error?.message).toContain("post_tool_use does not accept a decision");
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
    expect(failed.last_error?.message).toContain("could not be reached for stop");
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
});
