/**
 * Usage and cost (docs/usage-cost.md), through the runner against the fake model on each provider's
 * real wire: a known script of usages (the fake model's `/usage`) over three turns, one of two steps,
 * with a price change before the last. Every step's usage is on its message (API and stream); the
 * chat's, the user's and the organization's totals are the exact sums of the hand-priced steps,
 * and the steps priced before the change keep their cost. Another tenant reads none of it.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { ProviderType } from "../../src/model-configs/providers";
import { api, createTestUser, expectJson, type TestUser } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithProvider } from "./support/model-user";
import { openStream } from "./support/stream-client";

afterAll(() => releaseChatsOf(modelUsers), 60_000);

interface Usage {
  input_tokens: number | null;
  output_tokens: number | null;
  total_tokens: number | null;
  reasoning_tokens: number | null;
  cached_input_tokens: number | null;
  cost_usd: string | null;
}
interface Message {
  id: number;
  role: string;
  content: { type: string; tool_call_id?: string }[];
  usage: Usage | null;
}
interface Totals {
  total_cost_usd: string;
  total_cost_micros: number;
  priced_message_count: number;
  unpriced_message_count: number;
  total_input_tokens: number;
  total_output_tokens: number;
  total_cached_input_tokens: number;
  total_reasoning_tokens: number;
}
interface ChatCost extends Totals {
  chat_id: string;
  by_chat: (Totals & { chat_id: string })[];
  by_model: (Totals & { model_config_id: string | null })[];
  turns: (Totals & { user_message_id: number | null })[];
}
interface Pricing {
  input_micros_per_million_tokens: number;
  output_micros_per_million_tokens: number;
  cached_input_micros_per_million_tokens: number | null;
  reasoning_micros_per_million_tokens: number | null;
}

/** `reasoning`: the wire reports a reasoning count (Anthropic's has none: its reasoning is output). */
const WIRES: { name: string; type: ProviderType; model: string; reasoning: boolean }[] = [
  { name: "OpenAI-compatible Chat Completions", type: "openai-compatible", model: "fake", reasoning: true },
  { name: "OpenAI Chat Completions", type: "openai", model: "gpt-4o", reasoning: true },
  { name: "OpenAI Responses", type: "openai", model: "gpt-5", reasoning: true },
  { name: "Anthropic Messages", type: "anthropic", model: "claude-sonnet-4-6", reasoning: false },
];

const FIRST: Pricing = {
  input_micros_per_million_tokens: 3_000_000,
  output_micros_per_million_tokens: 15_000_000,
  cached_input_micros_per_million_tokens: 300_000,
  reasoning_micros_per_million_tokens: 60_000_000,
};
const SECOND: Pricing = {
  input_micros_per_million_tokens: 1_250_000,
  output_micros_per_million_tokens: 2_000_003,
  cached_input_micros_per_million_tokens: null,
  reasoning_micros_per_million_tokens: null,
};

type Step = [input: number, cached: number, output: number, reasoning: number];

/** The test's own pricing, in picodollars (10^-12 $): the formula of docs/usage-cost.md. */
function picos([input, cached, output, reasoning]: Step, p: Pricing): bigint {
  const inP = BigInt(p.input_micros_per_million_tokens);
  const outP = BigInt(p.output_micros_per_million_tokens);
  const cachedP = BigInt(p.cached_input_micros_per_million_tokens ?? p.input_micros_per_million_tokens);
  const reasoningP = BigInt(p.reasoning_micros_per_million_tokens ?? p.output_micros_per_million_tokens);
  return BigInt(input - cached) * inP + BigInt(cached) * cachedP + BigInt(output - reasoning) * outP + BigInt(reasoning) * reasoningP;
}

/** Picodollars as the API writes dollars: at least cents, no trailing zeros beyond. */
function usd(p: bigint): string {
  const fraction = (p % 10n ** 12n).toString().padStart(12, "0").replace(/0+$/, "").padEnd(2, "0");
  return `${p / 10n ** 12n}.${fraction}`;
}

const nonce = () => crypto.randomUUID().slice(0, 8);
const ASK_USER = { name: "ask_user", description: "asks", input_schema: { type: "object", properties: { q: { type: "string" } } } };

async function statusOf(u: TestUser, chatId: string): Promise<string> {
  return (await expectJson<{ status: string }>(await api(`/chats/${chatId}`, { token: u.token }), 200)).status;
}
async function until(u: TestUser, chatId: string, status: string): Promise<void> {
  await expect.poll(() => statusOf(u, chatId), { timeout: 20_000, interval: 100 }).toBe(status);
}
async function messagesOf(u: TestUser, chatId: string): Promise<Message[]> {
  return (await expectJson<{ messages: Message[] }>(await api(`/chats/${chatId}/messages`, { token: u.token }), 200)).messages;
}
async function send(u: TestUser, chatId: string, text: string): Promise<void> {
  await expectJson(await api(`/chats/${chatId}/messages`, { token: u.token, body: { content: [{ type: "text", text }] } }), 200);
}
async function configIdOf(u: TestUser): Promise<string> {
  const [config] = await expectJson<{ id: string }[]>(
    await api(`/organizations/${u.organizationId}/chats/model-configs`, { token: u.token }),
    200,
  );
  return config!.id;
}
async function setPricing(u: TestUser, configId: string, pricing: Pricing | null): Promise<void> {
  const path = `/organizations/${u.organizationId}/chats/model-configs/${configId}`;
  const updated = await expectJson<{ pricing: Pricing | null }>(
    await api(path, { method: "PATCH", token: u.token, body: { pricing } }),
    200,
  );
  expect(updated.pricing).toEqual(pricing);
}

/** What the API says each token count is for a step the fake model reported as `step` on this wire. */
function reported(step: Step, wire: { reasoning: boolean }) {
  const [input, cached, output, reasoning] = step;
  return {
    input_tokens: input,
    cached_input_tokens: cached,
    output_tokens: output,
    reasoning_tokens: wire.reasoning ? reasoning : null,
  };
}
/** The step as priced: a wire without a reasoning count prices all output at the output price. */
const priced = (step: Step, wire: { reasoning: boolean }): Step => (wire.reasoning ? step : [step[0], step[1], step[2], 0]);

describe.each(WIRES)("over $name", (wire) => {
  it("each step carries its usage and cost; the chat's, user's and organization's totals are their exact sums", async () => {
    const u = await userWithProvider(wire.type, wire.model, {}, { role: "admin" });
    const configId = await configIdOf(u);
    await setPricing(u, configId, FIRST);
    const chat = await expectJson<{ id: string }>(
      await api("/chats", { token: u.token, body: { content: [], unsafe_dynamic_tools: [ASK_USER] } }),
      201,
    );
    const stream = await openStream(u, chat.id);

    // Turn 1: one step.
    const t1: Step = [1200, 300, 80, 20];
    await send(u, chat.id, `/usage ${t1.join(" ")} first turn ${nonce()}`);
    await until(u, chat.id, "waiting");
    // Turn 2: a client tool call, then the answer after its result: two steps of one turn.
    const t2: Step = [5000, 4000, 150, 50];
    await send(u, chat.id, `/usage ${t2.join(" ")} /tool ask_user {"q":"${nonce()}"}`);
    await until(u, chat.id, "requires_action");
    const call = (await messagesOf(u, chat.id)).flatMap((m) => m.content).find((p) => p.type === "tool-call")!;
    await expectJson(
      await api(`/chats/${chat.id}/tool-results`, {
        token: u.token,
        body: { results: [{ tool_call_id: call.tool_call_id, output: "yes" }] },
      }),
      204,
    );
    await until(u, chat.id, "waiting");
    // New prices apply from here on; what was committed keeps its cost.
    await setPricing(u, configId, SECOND);
    const t3: Step = [777, 0, 33, 0];
    await send(u, chat.id, `/usage ${t3.join(" ")} third turn ${nonce()}`);
    await until(u, chat.id, "waiting");

    const steps: { step: Step; pricing: Pricing }[] = [
      { step: t1, pricing: FIRST },
      { step: t2, pricing: FIRST },
      { step: t2, pricing: FIRST },
      { step: t3, pricing: SECOND },
    ];
    const costs = steps.map((s) => picos(priced(s.step, wire), s.pricing));

    // Per message, in history and on the stream.
    const messages = await messagesOf(u, chat.id);
    const assistant = messages.filter((m) => m.role === "assistant");
    expect(assistant.map((m) => m.usage)).toEqual(
      steps.map((s, i) => expect.objectContaining({ ...reported(s.step, wire), cost_usd: usd(costs[i]!) })),
    );
    expect(messages.filter((m) => m.role !== "assistant").every((m) => m.usage === null)).toBe(true);
    const at = await stream.until((e) => e.type === "message" && e.message?.id === assistant.at(-1)!.id);
    expect((stream.events[at]!.message as unknown as Message).usage).toEqual(assistant.at(-1)!.usage);
    stream.ws.close();

    // The chat.
    const total = costs.reduce((a, b) => a + b, 0n);
    const sum = (f: (s: Step) => number) => steps.reduce((a, s) => a + f(s.step), 0);
    const totals: Totals = {
      total_cost_usd: usd(total),
      total_cost_micros: Number((total + 500_000n) / 1_000_000n),
      priced_message_count: 4,
      unpriced_message_count: 0,
      total_input_tokens: sum((s) => s[0]),
      total_output_tokens: sum((s) => s[2]),
      total_cached_input_tokens: sum((s) => s[1]),
      total_reasoning_tokens: wire.reasoning ? sum((s) => s[3]) : 0,
    };
    const cost = await expectJson<ChatCost>(await api(`/chats/${chat.id}/cost`, { token: u.token }), 200);
    expect(cost).toMatchObject({ chat_id: chat.id, ...totals });
    // Coder's ChatCost fields over the same steps: four priced requests, none unpriced.
    expect(cost).toMatchObject({ request_count: 4, unpriced_request_count: 0 });
    expect(cost.by_chat).toEqual([expect.objectContaining({ chat_id: chat.id, ...totals })]);
    expect(cost.by_model).toEqual([expect.objectContaining({ model_config_id: configId, ...totals })]);
    const prompts = messages.filter((m) => m.role === "user").map((m) => m.id);
    expect(cost.turns.map((t) => [t.user_message_id, t.total_cost_usd, t.priced_message_count])).toEqual([
      [prompts[2], usd(costs[3]!), 1],
      [prompts[1], usd(costs[1]! + costs[2]!), 2],
      [prompts[0], usd(costs[0]!), 1],
    ]);

    // The user's and the organization's, over a range that holds the chat.
    const mine = await expectJson<Totals & { by_chat: { chat_id: string }[]; chat_count: number }>(
      await api("/chats/cost/me/summary", { token: u.token }),
      200,
    );
    expect(mine).toMatchObject({ ...totals, chat_count: 1 });
    expect(mine.by_chat.map((c) => c.chat_id)).toEqual([chat.id]);
    const org = await expectJson<Totals & { by_user: (Totals & { user_id: string })[]; user_count: number }>(
      await api(`/organizations/${u.organizationId}/chats/cost/summary`, { token: u.token }),
      200,
    );
    expect(org).toMatchObject({ ...totals, user_count: 1 });
    expect(org.by_user).toEqual([expect.objectContaining({ user_id: u.id, username: u.username, ...totals })]);
  });
});

describe("usage and cost reads", () => {
  it("count a model without prices as unpriced, and a range outside the steps as nothing", async () => {
    const u = await userWithProvider("openai-compatible", "fake", {}, { role: "admin" });
    const chat = await expectJson<{ id: string }>(await api("/chats", { token: u.token, body: { content: [] } }), 201);
    await send(u, chat.id, `/usage 10 0 5 0 unpriced ${nonce()}`);
    await until(u, chat.id, "waiting");
    const [assistant] = (await messagesOf(u, chat.id)).filter((m) => m.role === "assistant");
    expect(assistant!.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, cost_usd: null });
    const cost = await expectJson<ChatCost>(await api(`/chats/${chat.id}/cost`, { token: u.token }), 200);
    expect(cost).toMatchObject({
      total_cost_usd: "0.00",
      total_cost_micros: 0,
      priced_message_count: 0,
      unpriced_message_count: 1,
      total_input_tokens: 10,
      request_count: 1,
      unpriced_request_count: 1,
    });

    const later = new Date(Date.now() + 3_600_000).toISOString();
    const empty = await expectJson<Totals & { by_chat: unknown[] }>(
      await api(`/chats/cost/me/summary?start_date=${encodeURIComponent(later)}`, { token: u.token }),
      400,
    );
    expect(empty).toMatchObject({ code: "validation_failed" });
    const future = new Date(Date.now() + 7_200_000).toISOString();
    const none = await expectJson<Totals & { by_chat: unknown[]; chat_count: number }>(
      await api(`/chats/cost/me/summary?start_date=${encodeURIComponent(later)}&end_date=${encodeURIComponent(future)}`, {
        token: u.token,
      }),
      200,
    );
    expect(none).toMatchObject({ total_cost_usd: "0.00", priced_message_count: 0, unpriced_message_count: 0, chat_count: 0, by_chat: [] });
  });

  it("refuse a range backwards or longer than a year, and prices that are negative, fractional or too high", async () => {
    const u = await userWithProvider("openai-compatible", "fake", {}, { role: "admin" });
    const q = (start: string, end: string) => `start_date=${encodeURIComponent(start)}&end_date=${encodeURIComponent(end)}`;
    const backwards = await expectJson<{ code: string; validations: { field: string }[] }>(
      await api(`/chats/cost/me/summary?${q("2026-02-01T00:00:00Z", "2026-01-01T00:00:00Z")}`, { token: u.token }),
      400,
    );
    expect(backwards.validations.map((v) => v.field)).toContain("start_date");
    const long = await expectJson<{ validations: { field: string }[] }>(
      await api(`/organizations/${u.organizationId}/chats/cost/summary?${q("2024-01-01T00:00:00Z", "2026-01-01T00:00:00Z")}`, {
        token: u.token,
      }),
      400,
    );
    expect(long.validations.map((v) => v.field)).toContain("end_date");
    await expectJson(await api(`/chats/cost/me/summary?start_date=yesterday`, { token: u.token }), 400);
    await expectJson(await api(`/chats/cost/me/summary?limit=501`, { token: u.token }), 400);

    const configId = await configIdOf(u);
    const path = `/organizations/${u.organizationId}/chats/model-configs/${configId}`;
    const bad = [
      { ...FIRST, input_micros_per_million_tokens: -1 },
      { ...FIRST, output_micros_per_million_tokens: 1.5 },
      { ...FIRST, cached_input_micros_per_million_tokens: 10_000_000_001 },
      { input_micros_per_million_tokens: 1 },
      { ...FIRST, per_request: 1 },
    ];
    for (const pricing of bad) {
      const res = await expectJson<{ code: string; validations: { field: string }[] }>(
        await api(path, { method: "PATCH", token: u.token, body: { pricing } }),
        400,
      );
      expect(res.code).toBe("validation_failed");
      expect(res.validations.some((v) => v.field.startsWith("pricing"))).toBe(true);
    }
    // Nothing was written: still unpriced.
    const config = await expectJson<{ pricing: unknown }>(await api(path, { token: u.token }), 200);
    expect(config.pricing).toBeNull();
  });

  it("are the owner's: another tenant gets 404, a member 403 on the organization's", async () => {
    const u = await userWithProvider("openai-compatible", "fake", {}, { role: "admin" });
    const chat = await expectJson<{ id: string }>(await api("/chats", { token: u.token, body: { content: [] } }), 201);
    const outsider = await createTestUser({ role: "admin" });
    const member = await createTestUser({ organizationId: u.organizationId, role: "member" });
    for (const intruder of [outsider, member]) {
      await expectJson(await api(`/chats/${chat.id}/cost`, { token: intruder.token }), 404);
      await expectJson(await api(`/chats/cost/${u.id}/summary`, { token: intruder.token }), 404);
      await expectJson(await api(`/chats/cost/${u.username}/summary`, { token: intruder.token }), 404);
    }
    await expectJson(await api(`/organizations/${u.organizationId}/chats/cost/summary`, { token: outsider.token }), 404);
    await expectJson(await api(`/organizations/${u.organizationId}/chats/cost/summary`, { token: member.token }), 403);
    // The member's own summary is theirs: none of the admin's chats.
    const own = await expectJson<{ user_id: string; chat_count: number }>(
      await api("/chats/cost/me/summary", { token: member.token }),
      200,
    );
    expect(own).toMatchObject({ user_id: member.id, chat_count: 0 });
  });
});
