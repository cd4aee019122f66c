/**
 * Plan mode through the runner (docs/plan-mode.md), with the fake model and the test MCP server:
 * the model is told it is planning and offered read-only tools only (MCP tools by their
 * readOnlyHint, the subagent tools that only read), a write tool it calls anyway is refused and
 * never runs, and a switch by PATCH reaches the stream and applies from the next step.
 */
import { afterAll, describe, expect, inject, it } from "vitest";
import { api, expectJson, type TestUser } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithModel } from "./support/model-user";
import { openWatch } from "./support/stream-client";
import type { Message } from "./support/wire";

const mcp = inject("mcpServer");
/** This file's servers count apart from other files' (scripts/test-mcp/server.ts `/scoped/`). */
const SCOPED = new URL("/scoped/plan-mode/mcp", mcp.url).href;
const nonce = () => crypto.randomUUID().slice(0, 8);
const PLAN_LINE = "You are in plan mode.";

afterAll(() => releaseChatsOf(modelUsers), 60_000);

interface Logged {
  toolNames: string[];
  system: string;
  params: { stream?: boolean };
}

/** The turn steps' requests whose prompt holds `contains` (background calls, such as the title's, do not stream). */
async function requests(contains: string): Promise<Logged[]> {
  const res = await fetch(`${inject("fakeModelUrl")}/_requests?contains=${encodeURIComponent(contains)}`);
  return ((await res.json()) as { requests: Logged[] }).requests.filter((r) => r.params.stream === true);
}

async function mcpCalls(): Promise<Record<string, number>> {
  return ((await (await fetch(new URL("/_stats?scope=plan-mode", mcp.url))).json()) as { calls: Record<string, number> }).calls;
}

async function register(admin: TestUser): Promise<string> {
  const body = { name: "tools", url: SCOPED, bearer_token: mcp.token, headers: { "X-Test-Header": mcp.headerValue } };
  return (
    await expectJson<{ id: string }>(await api(`/organizations/${admin.organizationId}/mcp-servers`, { token: admin.token, body }), 201)
  ).id;
}

async function chat(
  user: TestUser,
  id: string,
): Promise<{ status: string; plan_mode: "plan" | ""; last_error: { message: string } | null }> {
  return expectJson(await api(`/chats/${id}`, { token: user.token }), 200);
}

async function turn(user: TestUser, id: string, text: string): Promise<Message[]> {
  const before = (await expectJson<{ messages: Message[] }>(await api(`/chats/${id}/messages`, { token: user.token }), 200)).messages
    .length;
  await expectJson(await api(`/chats/${id}/messages`, { token: user.token, body: { content: [{ type: "text", text }] } }), 200);
  await expect.poll(async () => (await chat(user, id)).status, { timeout: 30_000, interval: 100 }).toBe("waiting");
  return (await expectJson<{ messages: Message[] }>(await api(`/chats/${id}/messages`, { token: user.token }), 200)).messages.slice(before);
}

describe("plan mode", () => {
  it("tells the model it is planning and offers read-only tools only; a switch applies from the next step and reaches the stream", async () => {
    const u = await userWithModel({ role: "admin" });
    const server = await register(u);
    // Coder's form: the string "plan" turns it on, "" turns it off, and the chat shows the same.
    const created = await expectJson<{ id: string; plan_mode: string }>(
      await api("/chats", { token: u.token, body: { content: [], mcp_server_ids: [server], plan_mode: "plan" } }),
      201,
    );
    expect(created.plan_mode).toBe("plan");
    const id = created.id;

    const planning = nonce();
    await turn(u, id, `/offered-tools ${planning}`);
    const [asked] = await requests(planning);
    expect(asked!.system).toContain(PLAN_LINE);
    // echo and add carry readOnlyHint; fail and sleep do not. Of the subagent tools, those that only read.
    expect([...asked!.toolNames].sort()).toEqual(["list_agents", "list_subagent_models", "tools__add", "tools__echo", "wait_agent"]);

    const watch = await openWatch(u);
    try {
      await expectJson(await api(`/chats/${id}`, { method: "PATCH", token: u.token, body: { plan_mode: "" } }), 204);
      // Plan mode has no kind of its own in Coder's list: the whole chat as a status_change (or
      // `created`, when the watch first hears of a chat made within the last moments).
      await watch.until(id, (e) => ["status_change", "created"].includes(e.kind) && e.chat.plan_mode === "");
    } finally {
      watch.ws.close();
    }
    expect((await chat(u, id)).plan_mode).toBe("");

    const acting = nonce();
    await turn(u, id, `/offered-tools ${acting}`);
    const [after] = await requests(acting);
    expect(after!.system).not.toContain(PLAN_LINE);
    expect(after!.toolNames).toEqual(expect.arrayContaining(["spawn_agent", "tools__fail", "tools__sleep", "tools__echo"]));
  });

  it("refuses a write tool the model calls while planning: an error result, and the server never sees the call", async () => {
    const u = await userWithModel({ role: "admin" });
    const server = await register(u);
    const id = (
      await expectJson<{ id: string }>(
        await api("/chats", { token: u.token, body: { content: [], mcp_server_ids: [server], plan_mode: true } }),
        201,
      )
    ).id;
    const before = (await mcpCalls()).fail ?? 0;
    const messages = await turn(u, id, `/tool tools__fail {"message":"must not run ${nonce()}"}`);
    const results = messages.flatMap((m) => m.content).filter((p) => p.type === "tool-result") as {
      tool_name: string;
      is_error: boolean;
    }[];
    expect(results).toEqual([expect.objectContaining({ tool_name: "tools__fail", is_error: true })]);
    expect((await chat(u, id)).last_error).toBeNull();
    expect((await mcpCalls()).fail ?? 0).toBe(before);

    // A read-only tool runs as usual while planning.
    const read = await turn(u, id, `/tool tools__echo {"text":"look ${nonce()}"}`);
    expect(read.flatMap((m) => m.content).filter((p) => p.type === "tool-result")).toEqual([
      expect.objectContaining({ tool_name: "tools__echo", is_error: false }),
    ]);
  });

  it("validates plan_mode on create and PATCH, writing nothing", async () => {
    const u = await userWithModel();
    expect((await api("/chats", { token: u.token, body: { content: [], plan_mode: "yes" } })).status).toBe(400);
    const id = (await expectJson<{ id: string; plan_mode: boolean }>(await api("/chats", { token: u.token, body: { content: [] } }), 201))
      .id;
    const bad = await api(`/chats/${id}`, { method: "PATCH", token: u.token, body: { plan_mode: 1, title: "not written" } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "validation_failed" });
    const read = await expectJson<{ plan_mode: string; title: string }>(await api(`/chats/${id}`, { token: u.token }), 200);
    expect(read.plan_mode).toBe("");
    expect(read.title).not.toBe("not written");

    // This service's boolean still switches it; null (Coder's nil pointer) leaves it as it is.
    await expectJson(await api(`/chats/${id}`, { method: "PATCH", token: u.token, body: { plan_mode: true } }), 204);
    await expectJson(await api(`/chats/${id}`, { method: "PATCH", token: u.token, body: { plan_mode: null, title: "kept" } }), 204);
    expect(await expectJson(await api(`/chats/${id}`, { token: u.token }), 200)).toMatchObject({ plan_mode: "plan", title: "kept" });
  });
});
