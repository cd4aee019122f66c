/**
 * Provider web search through the runner, on the two wires that have it (the fake model's
 * `/web-search` over OpenAI Responses and Anthropic Messages): turned on per model config by an
 * admin, the provider's call, its result and the pages it drew on are streamed and committed as
 * parts; the next turn sends them back in the provider's own shape, which the fake model checks as
 * the real API does; with the setting off nothing is offered.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { ProviderType } from "../../src/model-configs/providers";
import { api, createTestUser, expectJson, joinOrg, type TestUser } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithProvider } from "./support/model-user";
import { openParts, openStream, type PartFrame } from "./support/stream-client";
import { newGate, openGate } from "../support/fake-model-gate";
import { turnRequestsWith } from "../support/fake-model-requests";
import type { Part } from "./support/wire";

interface SourcePart extends Part {
  url?: string;
  provider?: string;
  provider_executed?: boolean;
  args_delta?: string;
}

const WIRES: { name: string; type: ProviderType; model: string; family: "openai" | "anthropic" }[] = [
  { name: "OpenAI Responses", type: "openai", model: "gpt-5", family: "openai" },
  { name: "Anthropic Messages", type: "anthropic", model: "claude-sonnet-4-6", family: "anthropic" },
];

afterAll(() => releaseChatsOf(modelUsers), 60_000);

async function emptyChat(u: TestUser): Promise<{ id: string; snapshot_version: number }> {
  return expectJson(await api("/chats", { token: u.token, body: { content: [] } }), 201);
}

async function send(u: TestUser, chatId: string, text: string): Promise<void> {
  await expectJson(await api(`/chats/${chatId}/messages`, { token: u.token, body: { content: [{ type: "text", text }] } }), 200);
}

async function settled(u: TestUser, chatId: string): Promise<{ role: string; content: SourcePart[] }[]> {
  const chat = async () =>
    expectJson<{ status: string; last_error: { message: string } | null }>(await api(`/chats/${chatId}`, { token: u.token }), 200);
  await expect.poll(async () => (await chat()).status, { timeout: 20_000, interval: 100 }).toBe("waiting");
  expect((await chat()).last_error).toBeNull();
  return (
    await expectJson<{ messages: { role: string; content: SourcePart[] }[] }>(
      await api(`/chats/${chatId}/messages`, { token: u.token }),
      200,
    )
  ).messages;
}

/** The organization's only model config, with web search turned on by the admin over the API. */
async function enableWebSearch(admin: TestUser, family: "openai" | "anthropic"): Promise<void> {
  const configs = await expectJson<{ id: string }[]>(
    await api(`/organizations/${admin.organizationId}/chats/model-configs`, { token: admin.token }),
    200,
  );
  const id = configs[0]!.id;
  const path = `/organizations/${admin.organizationId}/chats/model-configs/${id}`;
  // A malformed setting is refused and changes nothing.
  const bad = await api(path, {
    method: "PATCH",
    token: admin.token,
    body: { options: { provider_options: { [family]: { web_search_enabled: "yes" } } } },
  });
  expect(bad.status).toBe(400);
  const body = { options: { provider_options: { [family]: { web_search_enabled: true, allowed_domains: ["search.example"] } } } };
  await expectJson(await api(path, { method: "PATCH", token: admin.token, body }), 200);
}

describe.each(WIRES)("web search over $name", (wire) => {
  it("streams and commits the provider's call, result and sources; the next turn replays them and the wire accepts it", async () => {
    const u = await userWithProvider(wire.type, wire.model, {}, { role: "admin" });
    await enableWebSearch(u, wire.family);
    const chat = await emptyChat(u);
    const stream = await openStream(u, chat.id);
    const { ws, frames } = await openParts(u, chat.id);
    ws.send(JSON.stringify({ history_version: chat.snapshot_version + 1, generation_attempt: 1 }));
    const tag = crypto.randomUUID().slice(0, 8);
    // Held after the answer's first token until the parts socket has the search: from then on it follows live.
    const gate = newGate("search");
    await send(u, chat.id, `/gate ${gate} 5 /web-search weather ${tag} :: It is sunny ${tag}.`);
    await expect.poll(() => frames.length, { timeout: 15_000 }).toBeGreaterThan(2);
    await openGate(gate);

    const assistant = (await settled(u, chat.id)).filter((m) => m.role === "assistant");
    expect(assistant).toHaveLength(1);
    const content = assistant[0]!.content;
    // In Coder's shapes: the provider's call and result are tool-call / tool-result marked provider_executed.
    expect(content.map((p) => p.type)).toEqual(["tool-call", "tool-result", "source", "source", "text"]);
    const [call, result] = content;
    expect(call).toMatchObject({ type: "tool-call", tool_name: "web_search", provider_executed: true, provider: wire.family });
    expect(result).toMatchObject({
      type: "tool-result",
      tool_call_id: call!.tool_call_id,
      is_error: false,
      provider_executed: true,
      provider: wire.family,
    });
    // The provider's opaque replay data stays in the stored row: clients never see it.
    expect(JSON.stringify(result)).not.toContain("encryptedContent");
    expect(content.filter((p) => p.type === "source").map((p) => p.url)).toEqual([
      `https://search.example/weather-${tag}/1`,
      `https://search.example/weather-${tag}/2`,
    ]);
    expect(content.at(-1)).toEqual({ type: "text", text: `It is sunny ${tag}.` });

    // The stream carried the same parts as they came, the search before the text.
    const parts = (f: PartFrame[]) => f.map((frame) => frame.part as SourcePart);
    await expect.poll(() => parts(frames).some((p) => p.type === "text")).toBe(true);
    // In Coder's shapes: the provider's call and result are tool-call / tool-result marked provider_executed.
    expect(
      parts(frames)
        .slice(0, 4)
        .map((p) => [p.type, p.provider_executed]),
    ).toEqual([
      ["tool-call", true],
      ["tool-result", true],
      ["source", undefined],
      ["source", undefined],
    ]);
    // The query the provider streamed is not shown as a call being written, nor as one to run.
    const calls = parts(frames).filter((p) => p.type === "tool-call");
    expect(calls).toHaveLength(1);
    expect(calls[0]).not.toHaveProperty("args_delta");
    await stream.until((e) => e.type === "message" && e.message?.role === "assistant");
    const committed = stream.events.find((e) => e.type === "message" && e.message?.role === "assistant");
    expect(committed!.message!.content).toEqual(content);

    // The request offered the tool as configured.
    const [request] = await turnRequestsWith(`weather ${tag}`);
    expect(request!.providerTools).toEqual([
      wire.family === "openai"
        ? { type: "web_search", filters: { allowed_domains: ["search.example"] } }
        : { type: "web_search_20250305", name: "web_search", allowed_domains: ["search.example"] },
    ]);

    // The next turn sends the search back in the provider's shape; the fake refuses any it would not take.
    await send(u, chat.id, `and tomorrow ${tag}?`);
    const after = (await settled(u, chat.id)).filter((m) => m.role === "assistant");
    expect(after.at(-1)!.content).toEqual([{ type: "text", text: `and tomorrow ${tag}?` }]);
    const [next] = await turnRequestsWith(`and tomorrow ${tag}?`);
    expect(next!.replayedProviderTools).toEqual(
      wire.family === "openai" ? ["item_reference"] : ["server_tool_use", "web_search_tool_result"],
    );
    stream.ws.close();
    ws.close();
  });

  it("is off by default: no tool offered, no provider parts", async () => {
    const u = await userWithProvider(wire.type, wire.model);
    const chat = await emptyChat(u);
    const tag = crypto.randomUUID().slice(0, 8);
    await send(u, chat.id, `/web-search rain ${tag} :: Bring an umbrella ${tag}.`);
    const assistant = (await settled(u, chat.id)).filter((m) => m.role === "assistant");
    expect(assistant.at(-1)!.content).toEqual([{ type: "text", text: `web search not offered: Bring an umbrella ${tag}.` }]);
    const [request] = await turnRequestsWith(`rain ${tag}`);
    expect(request!.providerTools).toEqual([]);
  });
});

describe("web search settings", () => {
  it("only an organization admin may turn it on", async () => {
    const admin = await userWithProvider("anthropic", "claude-sonnet-4-6", {}, { role: "admin" });
    const member = await createTestUser();
    await joinOrg(member.id, admin.organizationId, "member");
    const configs = await expectJson<{ id: string }[]>(
      await api(`/organizations/${admin.organizationId}/chats/model-configs`, { token: admin.token }),
      200,
    );
    const res = await api(`/organizations/${admin.organizationId}/chats/model-configs/${configs[0]!.id}`, {
      method: "PATCH",
      token: member.token,
      body: { options: { provider_options: { anthropic: { web_search_enabled: true } } } },
    });
    expect(res.status).toBe(403);
  });
});
