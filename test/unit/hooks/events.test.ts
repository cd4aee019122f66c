import { describe, expect, it } from "vitest";
import { hookContextEvent, hookContextRows } from "../../../src/chats/hook-context-rows";
import { hookEventId } from "../../../src/hooks/event-id";
import { HOOK_EVENTS, parseHookResponse } from "../../../src/hooks/events";
import { signBody } from "../../../src/hooks/signature";
import { createHmac } from "node:crypto";

describe("parseHookResponse", () => {
  it("accepts a decision and an override only where the event takes them", () => {
    expect(parseHookResponse("user_prompt_submit", { decision: "deny", reason: "no" }).ok).toBe(true);
    expect(parseHookResponse("user_prompt_submit", { updated_prompt: "x" }).ok).toBe(true);
    expect(parseHookResponse("pre_tool_use", { decision: "allow", updated_input: { a: 1 } }).ok).toBe(true);
    expect(parseHookResponse("pre_tool_use", { updated_prompt: "x" })).toEqual({
      ok: false,
      why: "pre_tool_use does not accept updated_prompt",
    });
    for (const event of HOOK_EVENTS.filter((e) => e !== "user_prompt_submit" && e !== "pre_tool_use")) {
      expect(parseHookResponse(event, { decision: "allow" }).ok).toBe(false);
      expect(parseHookResponse(event, { updated_input: {} }).ok).toBe(false);
      expect(parseHookResponse(event, { model_context: "m", user_context: "u" }).ok).toBe(true);
    }
  });

  it("refuses unknown fields and wrong types", () => {
    expect(parseHookResponse("stop", { continue: true }).ok).toBe(false);
    expect(parseHookResponse("stop", { model_context: 1 }).ok).toBe(false);
    expect(parseHookResponse("stop", [1]).ok).toBe(false);
    expect(parseHookResponse("user_prompt_submit", { reason: "why" }).ok).toBe(false);
    expect(parseHookResponse("stop", {}).ok).toBe(true);
  });
});

describe("event ids and signatures", () => {
  it("derives the same id from the same trigger and another from another", async () => {
    const a = await hookEventId("chat-1", "pre_tool_use", "call_1");
    expect(await hookEventId("chat-1", "pre_tool_use", "call_1")).toBe(a);
    expect(await hookEventId("chat-1", "post_tool_use", "call_1")).not.toBe(a);
    expect(await hookEventId("chat-2", "pre_tool_use", "call_1")).not.toBe(a);
    expect(a).toMatch(/^evt_[0-9a-f]{32}$/);
  });

  it("signs the body with HMAC-SHA256 of the secret", async () => {
    const body = JSON.stringify({ id: "evt_x" });
    const expected = createHmac("sha256", "a-secret-of-16-chars").update(body).digest("hex");
    expect(await signBody("a-secret-of-16-chars", body)).toBe(`sha256=${expected}`);
  });
});

describe("hook context rows", () => {
  it("tags model and user context with the event", () => {
    const rows = hookContextRows("stop", { model_context: "keep going", user_context: "note" });
    expect(rows.map((r) => [r.role, r.modelOnly ?? false])).toEqual([
      ["user", false],
      ["user", true],
    ]);
    expect(rows.map((r) => hookContextEvent(r))).toEqual(["stop", "stop"]);
    expect(hookContextEvent({ role: "user", content: [{ type: "text", text: "hello" }] })).toBeNull();
  });
});
