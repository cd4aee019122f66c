/**
 * Automatic compaction in chats that run by themselves against the fake model. The fake model
 * reports the prompt's size as one token per 4 characters of its text and enforces `fake-ctx<N>`
 * windows, so each test sizes its messages to land on one side of a trigger: `/long 3 <padding>`
 * makes a big prompt with a three-token reply. Test config: 2 generation retries (vitest.config.ts,
 * project "runner"). Manual compaction (/compact): manual-compaction.test.ts; shared helpers in
 * support/compaction-chats.ts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { SUBAGENT_GUIDANCE } from "../../src/subagents/prompts";
import { summaryAnchorText } from "../../src/llm/compaction/boundary";
import { SUMMARY_INSTRUCTION } from "../../src/llm/compaction/summary-prompt";
import { api, expectJson, type TestUser } from "../worker/support/accounts";
import { type CompactionUser, compactionUser, storedRows } from "./support/compaction-models";
import { modelUsers, releaseChatsOf } from "./support/model-user";
import { nonce, send, start, summaries, textOf, until } from "./support/compaction-chats";

/** A message of about `tokens` prompt tokens whose reply is three tokens. */
const big = (tokens: number) => `/long 3 ${nonce()} ${"abcd ".repeat(Math.ceil((tokens * 4) / 5))}`;

async function setThreshold(u: TestUser, percent: number | null): Promise<void> {
  await expectJson(
    await api("/users/me/chat-preferences", { method: "PUT", token: u.token, body: { compaction_threshold_percent: percent } }),
    200,
  );
}

async function setOverride(u: CompactionUser): Promise<void> {
  await expectJson(
    await api(`/organizations/${u.organizationId}/chats/model-overrides/compaction`, {
      method: "PUT",
      token: u.token,
      body: { model_config_id: u.overrideId },
    }),
    200,
  );
}

/** The prompt the fake model saw for the reply after a compaction: the summary anchor and the replayed messages. */
/** A root chat's prompt after its boundary: the summary, the replayed messages, and the system prompt (the subagent tools' guidance). */
const promptAfterSummary = (...replayed: string[]) =>
  Math.ceil((summaryAnchorText(SUMMARY_INSTRUCTION).length + SUBAGENT_GUIDANCE.length + replayed.reduce((n, t) => n + t.length, 0)) / 4);

afterAll(() => releaseChatsOf(modelUsers), 60_000);

describe("automatic compaction", () => {
  it("fires at the chat trigger (the owner's threshold) when it is the lower point", async () => {
    // Chat trigger: owner 20% of 8000 = 1600 (the model's own 90% would be 7200); organization: 80% of 4000 = 3200.
    const u = await compactionUser({ contextLimit: 8000, compressionThreshold: 90 }, { contextLimit: 4000 });
    await setOverride(u);
    await setThreshold(u, 20);
    const id = await start(u, big(1700));
    await until(u, id, "waiting");
    const second = `second question ${nonce()}`;
    await send(u, id, second);
    await until(u, id, "waiting");

    const rows = await storedRows(id);
    expect(summaries(rows)).toMatchObject([
      {
        source: "automatic",
        threshold_percent: 20,
        trigger_context_limit_tokens: 8000,
        context_limit_tokens: 8000,
        model: "fake-ctx4000",
      },
    ]);
    // The order: the trailing user message, the triplet, its verbatim model-only replay, the reply.
    const roles = rows.map((r) => `${r.role}${r.compressed ? "/c" : ""}${r.model_only ? "/m" : ""}`);
    expect(roles).toEqual(["user", "assistant", "user", "user/c/m", "assistant/c", "tool/c", "user/m", "assistant"]);
    expect(rows[6]!.content).toEqual(rows[2]!.content);
    expect(textOf(rows[7]!)).toBe(second);
    // The prompt after compaction starts at the boundary: exactly the summary and the replayed message.
    expect(rows[7]!.usage?.input_tokens).toBe(promptAfterSummary(second));
  });

  it("fires at the organization trigger (80% of the override's window) when it is the lower point", async () => {
    // Chat trigger: 50% of 8000 = 4000; organization: 80% of 2000 = 1600.
    const u = await compactionUser({ contextLimit: 8000, compressionThreshold: 50 }, { contextLimit: 2000 });
    await setOverride(u);
    const id = await start(u, big(1700));
    await until(u, id, "waiting");
    await send(u, id, `next ${nonce()}`);
    await until(u, id, "waiting");
    expect(summaries(await storedRows(id))).toMatchObject([
      {
        source: "automatic",
        threshold_percent: 80,
        trigger_context_limit_tokens: 2000,
        context_limit_tokens: 8000,
        model: "fake-ctx2000",
      },
    ]);
  });

  it("does not fire below the binding trigger", async () => {
    const u = await compactionUser({ contextLimit: 8000, compressionThreshold: 50 });
    const id = await start(u, big(1700));
    await until(u, id, "waiting");
    await send(u, id, `next ${nonce()}`);
    await until(u, id, "waiting");
    const rows = await storedRows(id);
    expect(summaries(rows)).toEqual([]);
    expect(rows.map((r) => r.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("falls back to the chat model (and its trigger alone) when the override's config is deleted", async () => {
    // Live, the override would bind at 1600 and fail: its 2000-token window cannot hold a 2500-token summary prompt.
    const u = await compactionUser({ contextLimit: 8000, compressionThreshold: 30 }, { contextLimit: 2000 });
    await setOverride(u);
    await expectJson(
      await api(`/organizations/${u.organizationId}/chats/model-configs/${u.overrideId}`, { method: "DELETE", token: u.token }),
      204,
    );
    const id = await start(u, big(2500));
    await until(u, id, "waiting");
    await send(u, id, `next ${nonce()}`);
    await until(u, id, "waiting");
    expect(summaries(await storedRows(id))).toMatchObject([
      { threshold_percent: 30, trigger_context_limit_tokens: 8000, model: "fake-ctx8000" },
    ]);
  });

  it("fails the turn visibly when a usable override fails at use", async () => {
    // Organization trigger: 80% of 1000 = 800; the summary prompt (about 1000 tokens and more) exceeds the override's window.
    const u = await compactionUser({ contextLimit: 8000, compressionThreshold: 90 }, { contextLimit: 1000 });
    await setOverride(u);
    const id = await start(u, big(990));
    await until(u, id, "waiting");
    await send(u, id, `next ${nonce()}`);
    const chat = await until(u, id, "error");
    expect(chat.last_error?.message).toMatch(/^Compaction failed: .*400/);
    expect(summaries(await storedRows(id))).toEqual([]);
  });

  it.each([
    { name: "the chat model", override: undefined, provider: "openai-compatible" },
    {
      name: "an override of another provider type (re-sanitized prompt)",
      override: { contextLimit: 8000, providerType: "anthropic" as const },
      provider: "anthropic",
    },
  ])("compacts mid-turn, after a tool result, with $name", async ({ override, provider }) => {
    // Chat trigger: 5% of 8000 = 400; the tool call's step had a prompt of about 510 tokens.
    const u = await compactionUser({ contextLimit: 8000, compressionThreshold: 5 }, override);
    if (override) await setOverride(u);
    const tools = [{ name: "ask_user", input_schema: { type: "object", properties: { q: { type: "string" } } } }];
    const res = await api("/chats", {
      token: u.token,
      body: { content: [{ type: "text", text: `/tool ask_user {"q":"${nonce()} ${"abcd ".repeat(400)}"}` }], unsafe_dynamic_tools: tools },
    });
    const id = (await expectJson<{ id: string }>(res, 201)).id;
    await until(u, id, "requires_action");
    const call = (await storedRows(id)).flatMap((r) => r.content).find((p) => p.type === "tool-call") as unknown as {
      tool_call_id: string;
    };
    await expectJson(
      await api(`/chats/${id}/tool-results`, { token: u.token, body: { results: [{ tool_call_id: call.tool_call_id, output: "yes" }] } }),
      204,
    );
    await until(u, id, "waiting");
    const rows = await storedRows(id);
    expect(summaries(rows)).toMatchObject([{ source: "automatic", threshold_percent: 5, provider }]);
    // Mid-turn nothing is pending: the reply's prompt is the summary alone, which the fake model echoes.
    expect(rows.filter((r) => r.role === "user" && r.model_only && !r.compressed)).toEqual([]);
    const summary = String(summaries(rows)[0]!["summary"]);
    expect(textOf(rows.at(-1)!)).toBe(summaryAnchorText(summary));
    if (override) {
      // Re-sanitized for Anthropic: the tool history reached it as text (the SDK merges it into the
      // instruction's user turn, which the fake model echoes), not as tool_use/tool_result blocks.
      expect(summary).toMatch(/^\[tool result ask_user \(call_\d+\): yes\]/);
    } else {
      expect(summary).toBe(SUMMARY_INSTRUCTION);
    }
  });

  it("ends with one 'still over limit' error instead of a compaction loop, and compacts again under a new threshold", async () => {
    // Chat trigger: 10% of 8000 = 800. The replayed message alone is over it.
    const u = await compactionUser({ contextLimit: 8000, compressionThreshold: 10 });
    const id = await start(u, big(1000));
    await until(u, id, "waiting");
    await send(u, id, big(1000));
    await until(u, id, "waiting");
    expect(summaries(await storedRows(id))).toHaveLength(1);

    await send(u, id, `hello ${nonce()}`);
    const failed = await until(u, id, "error");
    expect(failed.last_error?.message).toMatch(/still over its compaction limit/);
    expect(failed.last_error?.message).toMatch(/raise your compaction threshold/);
    expect(failed.last_error?.message).not.toMatch(/organization admin/);
    expect(summaries(await storedRows(id))).toHaveLength(1);

    // A summary recorded under another threshold is not a failed compaction: 12% (960) compacts again.
    await setThreshold(u, 12);
    const last = `next ${nonce()}`;
    await send(u, id, last);
    await until(u, id, "waiting");
    const rows = await storedRows(id);
    expect(summaries(rows).map((s) => s["threshold_percent"])).toEqual([10, 12]);
    // Both unanswered messages (the one that failed and the new one) were replayed verbatim.
    const replayed = rows.filter((r) => r.role === "user" && r.model_only && !r.compressed).slice(-2);
    expect(replayed.map(textOf)).toEqual([textOf(rows.filter((r) => r.role === "user" && !r.model_only).at(-2)!), last]);
    expect(textOf(rows.at(-1)!)).toBe(last);
  });
});
