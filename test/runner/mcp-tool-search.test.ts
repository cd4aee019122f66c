/**
 * MCP tool search through the runner (docs/mcp.md#tool-search), against the test MCP server's
 * generated catalog (scripts/test-mcp/catalog.ts) and the fake model on each wire format: with the
 * setting on, a step is offered find_tools instead of the catalog and the next step the tools it
 * found; the decision is made on a turn's first step and held by the runner for every later step,
 * whatever the setting becomes meanwhile, then made again on the next turn.
 */
import { afterAll, describe, expect, inject, it } from "vitest";
import { api, createTestUser, expectJson, type TestUser } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithProvider } from "./support/model-user";
import type { Message } from "./support/wire";

const mcp = inject("mcpServer");
/** This file's servers count apart from other files' (scripts/test-mcp/server.ts `/scoped/`). */
const SCOPED = new URL("/scoped/tool-search/mcp", mcp.url).href;
const nonce = () => crypto.randomUUID().slice(0, 8);

afterAll(() => releaseChatsOf(modelUsers), 60_000);

interface Logged {
  seq: number;
  toolNames: string[];
  headers: Record<string, string>;
  params: { stream?: boolean };
}

/**
 * The chat's turn steps as the fake model received them, oldest first: its streaming requests (background
 * calls, such as the title's, do not stream), told apart by the chat id the attribution header carries
 * (a step after a tool result has no user text to search for on every wire).
 */
async function steps(chatId: string): Promise<Logged[]> {
  const res = await fetch(`${inject("fakeModelUrl")}/_requests?contains=`);
  return ((await res.json()) as { requests: Logged[] }).requests.filter(
    (r) => r.params.stream === true && (r.headers["cf-aig-metadata"] ?? "").includes(chatId),
  );
}

async function registerCatalog(admin: TestUser, size: number): Promise<string> {
  const body = {
    name: "cat",
    url: new URL(`/scoped/tool-search/catalog/${size}/mcp`, mcp.url).href,
    bearer_token: mcp.token,
    headers: { "X-Test-Header": mcp.headerValue },
  };
  return (
    await expectJson<{ id: string }>(await api(`/organizations/${admin.organizationId}/mcp-servers`, { token: admin.token, body }), 201)
  ).id;
}

async function setSearch(user: TestUser, on: boolean | null): Promise<void> {
  const body = { compaction_threshold_percent: null, mcp_tool_search: on };
  await expectJson(await api("/users/me/chat-preferences", { method: "PUT", token: user.token, body }), 200);
}

async function messagesOf(user: TestUser, id: string): Promise<Message[]> {
  return (await expectJson<{ messages: Message[] }>(await api(`/chats/${id}/messages`, { token: user.token }), 200)).messages;
}

async function untilWaiting(user: TestUser, id: string): Promise<void> {
  await expect
    .poll(async () => (await expectJson<{ status: string }>(await api(`/chats/${id}`, { token: user.token }), 200)).status, {
      timeout: 30_000,
      interval: 100,
    })
    .toBe("waiting");
}

async function send(user: TestUser, id: string, text: string): Promise<void> {
  await expectJson(await api(`/chats/${id}/messages`, { token: user.token, body: { content: [{ type: "text", text }] } }), 200);
}

const catalogNames = (names: string[]) => names.filter((n) => n.startsWith("cat__"));

const transports = [
  { name: "Chat Completions", type: "openai" as const, model: "gpt-4o" },
  { name: "Responses", type: "openai" as const, model: "gpt-5" },
  { name: "Anthropic Messages", type: "anthropic" as const, model: "claude-sonnet-4-6" },
];

describe("MCP tool search", () => {
  it.each(transports)("offers find_tools instead of the catalog, then the tools it found ($name)", async ({ type, model }) => {
    const u = await userWithProvider(type, model, {}, { role: "admin" });
    const server = await registerCatalog(u, 60);
    await setSearch(u, true);
    const id = (
      await expectJson<{ id: string }>(await api("/chats", { token: u.token, body: { content: [], mcp_server_ids: [server] } }), 201)
    ).id;
    const tag = nonce();
    await send(u, id, `/tool find_tools {"query":"calendar events ${tag}"}`);
    await untilWaiting(u, id);

    const [first, second] = await steps(id);
    // The first step: find_tools, and none of the 60 schemas.
    expect(first!.toolNames).toContain("find_tools");
    expect(catalogNames(first!.toolNames)).toEqual([]);
    // find_tools answered the calendar tools; the next step is offered exactly those, and find_tools again.
    const result = (await messagesOf(u, id)).flatMap((m) => m.content).find((p) => p.type === "tool-result") as
      | { tool_name: string; is_error: boolean; result: { tools: { name: string }[] } }
      | undefined;
    expect(result).toMatchObject({ tool_name: "find_tools", is_error: false });
    const found = result!.result.tools.map((t) => t.name);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((n) => n.includes("calendar"))).toBe(true);
    expect(second!.toolNames).toContain("find_tools");
    expect(catalogNames(second!.toolNames).sort()).toEqual([...found].sort());

    // A found tool is called and runs on the server.
    const call = nonce();
    await send(u, id, `/tool ${found[0]} {"query":"standup ${call}"}`);
    await untilWaiting(u, id);
    const ran = (await messagesOf(u, id))
      .flatMap((m) => m.content)
      .filter((p) => p.type === "tool-result")
      .at(-1) as { tool_name: string; is_error: boolean; result: { content: string } } | undefined;
    expect(ran).toMatchObject({ tool_name: found[0], is_error: false });
    expect(ran!.result.content).toContain(call);
  });

  it("holds the turn's decision across its steps when the setting changes, and decides again on the next turn", async () => {
    const u = await userWithProvider("openai", "gpt-4o", {}, { role: "admin" });
    const body = { name: "tools", url: SCOPED, bearer_token: mcp.token, headers: { "X-Test-Header": mcp.headerValue } };
    const server = (
      await expectJson<{ id: string }>(await api(`/organizations/${u.organizationId}/mcp-servers`, { token: u.token, body }), 201)
    ).id;
    await setSearch(u, false);
    const id = (
      await expectJson<{ id: string }>(await api("/chats", { token: u.token, body: { content: [], mcp_server_ids: [server] } }), 201)
    ).id;

    // A turn of three steps (the runner project's step limit), each calling tools__sleep again.
    const parts = async () =>
      (await messagesOf(u, id)).flatMap((m) => m.content) as { type: string; tool_name?: string; is_error?: boolean }[];
    const sleepCalls = async () => (await parts()).filter((p) => p.type === "tool-call" && p.tool_name === "tools__sleep");
    const sleepResults = async () =>
      (await parts()).filter((p) => p.type === "tool-result" && p.tool_name === "tools__sleep" && !p.is_error);
    await send(u, id, '/tool-loop tools__sleep {"ms":1500}');
    // Tool search switched on while the first step's call runs (its call is committed, its result
    // 1.5 s away): the runner decided "off" on that first step and keeps it for the turn's later steps.
    await expect.poll(async () => (await sleepCalls()).length, { timeout: 20_000, interval: 50 }).toBeGreaterThan(0);
    expect(await sleepResults()).toHaveLength(0);
    await setSearch(u, true);
    await untilWaiting(u, id);
    const turn = await steps(id);
    expect(turn).toHaveLength(3);
    for (const step of turn) {
      expect(step.toolNames).not.toContain("find_tools");
      expect(step.toolNames).toContain("tools__sleep");
    }
    expect(await sleepResults()).toHaveLength(3);

    // The next turn reads the setting again: find_tools, no schemas.
    await send(u, id, `/offered-tools ${nonce()}`);
    await untilWaiting(u, id);
    const fresh = (await steps(id)).at(-1)!;
    expect(fresh.toolNames).toContain("find_tools");
    expect(fresh.toolNames.filter((n) => n.startsWith("tools__"))).toEqual([]);

    // The organization's setting applies when the user has none; the user's own wins over it.
    const offersSearch = async () => {
      await send(u, id, `/offered-tools ${nonce()}`);
      await untilWaiting(u, id);
      return (await steps(id)).at(-1)!.toolNames.includes("find_tools");
    };
    await setSearch(u, null);
    expect(await offersSearch()).toBe(false);
    await expectJson(
      await api(`/organizations/${u.organizationId}/chats/settings`, { method: "PUT", token: u.token, body: { mcp_tool_search: true } }),
      200,
    );
    expect(await offersSearch()).toBe(true);
    await setSearch(u, false);
    expect(await offersSearch()).toBe(false);
  });

  it("a member may read the organization's setting but not change it", async () => {
    const admin = await userWithProvider("openai", "gpt-4o", {}, { role: "admin" });
    const member = await createTestUser({ organizationId: admin.organizationId });
    const path = `/organizations/${admin.organizationId}/chats/settings`;
    expect(await expectJson(await api(path, { token: member.token }), 200)).toEqual({ mcp_tool_search: false });
    expect((await api(path, { method: "PUT", token: member.token, body: { mcp_tool_search: true } })).status).toBe(403);
    expect((await api(path, { method: "PUT", token: admin.token, body: { mcp_tool_search: "yes" } })).status).toBe(400);
    expect(await expectJson(await api(path, { token: member.token }), 200)).toEqual({ mcp_tool_search: false });
  });
});
