/**
 * Background generation against the real Postgres and the fake model over HTTP: the title call a
 * chat's first prompt starts (src/chat-worker/title-generation.ts), its bounded attempts and the
 * cron's read of chats left without a title; the summary and status label after a turn
 * (src/chat-worker/summary-generation.ts) and their ordering by history version.
 */
import { beforeAll, describe, expect, it, inject } from "vitest";
import { AttributionKeyCache } from "../../src/chat-worker/attribution";
import { SummaryGenerator } from "../../src/chat-worker/summary-generation";
import { TitleGenerator } from "../../src/chat-worker/title-generation";
import { findUntitledChats, TITLE_MAX_ATTEMPTS, TITLE_RETRY_AFTER_MS } from "../../src/chats/title";
import { writeSummary } from "../../src/chats/summary";
import type { Config } from "../../src/config/env";
import { chatFromRaw } from "../../src/db/rows";
import type { ChatRow } from "../../src/db/schema/chats";
import { createModelConfig, createProvider } from "../../src/model-configs/index";
import type { ResolvedModelConfig } from "../../src/model-configs/resolve";
import { fileEnv, history, text } from "./fixtures";
import { testKeys } from "../support/test-keys";

const file = fileEnv();
let orgDefault: ResolvedModelConfig;
beforeAll(async () => {
  const { env, db } = file;
  const provider = await createProvider(
    db,
    {
      type: "openai-compatible",
      name: `fake-${crypto.randomUUID()}`,
      baseUrl: `${inject("fakeModelUrl")}/v1`,
    },
    testKeys,
  );
  const config = await createModelConfig(
    db,
    env.owner.organizationId,
    { providerId: provider.id, model: "org-default", isDefault: true },
    new Date(),
  );
  orgDefault = { config, provider };
});

/** The deps both generators take; model requests are recorded (the `model` of each body), and the background work. */
function backgroundDeps(config: Partial<Config> = {}) {
  const models: string[] = [];
  const work: Promise<unknown>[] = [];
  const deps = {
    store: file.env.store,
    db: file.db,
    config: { CHAT_WORKER_ENABLED: true, CHAT_MAX_GENERATION_RETRIES: 0, CHAT_SECRETS_KEYS: testKeys, ...config } as Config,
    sleep: () => Promise.resolve(),
    now: () => new Date(),
    attributionKeys: new AttributionKeyCache(),
    fetch: async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      models.push((JSON.parse(String(init?.body)) as { model: string }).model);
      return fetch(input, init);
    },
    background: (p: Promise<unknown>) => work.push(p),
  };
  return { deps, models, settled: () => Promise.all(work) };
}

function titles(config: Partial<Config> = {}) {
  const { deps, models, settled } = backgroundDeps(config);
  const titled: ChatRow[] = [];
  return { titles: new TitleGenerator({ ...deps, titleChanged: (chat) => titled.push(chat) }), models, titled, settled };
}

async function newChat(prompt = `plan a trip to the coast ${crypto.randomUUID().slice(0, 8)}`) {
  const content = text(prompt);
  const created = await file.env.store.create({
    organizationId: file.env.owner.organizationId,
    ownerId: file.env.owner.userId,
    content,
  });
  return { chat: created.chat, content };
}

async function row(id: string): Promise<ChatRow> {
  const { rows } = await file.env.pool.query(`SELECT * FROM chats WHERE id = $1`, [id]);
  return chatFromRaw(rows[0] ?? {});
}

describe("the title a chat's first prompt starts", () => {
  it("calls the chat's own model at once and writes a generated title, counting the attempt", async () => {
    const { chat, content } = await newChat();
    const g = titles();
    g.titles.firstPrompt(chat, content);
    await g.settled();
    expect(g.models).toEqual(["org-default"]);
    expect(g.titled.map((c) => [c.id, c.titleSource])).toEqual([[chat.id, "generated"]]);
    const after = await row(chat.id);
    expect(after).toMatchObject({ titleSource: "generated", titleAttempts: 1 });
    expect(after.titleAttemptedAt).not.toBeNull();
    // Titled: a retry (the cron's) claims nothing and calls nothing.
    await g.titles.retry(chat.id);
    await g.settled();
    expect(g.models).toHaveLength(1);
  });

  it("makes no call without a worker (the API alone)", async () => {
    const { chat, content } = await newChat();
    const g = titles({ CHAT_WORKER_ENABLED: false });
    g.titles.firstPrompt(chat, content);
    await g.titles.retry(chat.id);
    await g.settled();
    expect(g.models).toEqual([]);
    expect(await row(chat.id)).toMatchObject({ titleSource: "fallback", titleAttempts: 0 });
  });

  it(`stops after ${TITLE_MAX_ATTEMPTS} attempts when every call fails, the title left as it was`, async () => {
    // Non-streaming requests carrying this prompt answer 400: each attempt fails at once.
    const { chat, content } = await newChat(`/nonstream-error 400 trip ${crypto.randomUUID().slice(0, 8)}`);
    const g = titles();
    g.titles.firstPrompt(chat, content);
    await g.settled();
    for (let i = 0; i < TITLE_MAX_ATTEMPTS + 2; i++) {
      await g.titles.retry(chat.id);
      await g.settled();
    }
    expect(g.models).toHaveLength(TITLE_MAX_ATTEMPTS);
    expect(g.titled).toEqual([]);
    expect(await row(chat.id)).toMatchObject({ title: chat.title, titleSource: "fallback", titleAttempts: TITLE_MAX_ATTEMPTS });
  });

  it("the cron finds a chat whose attempt is long past without a title, and only then", async () => {
    const { chat } = await newChat();
    // A first prompt whose object died before its title call: attempted, never titled.
    await file.env.pool.query(`UPDATE chats SET title_attempts = 1, title_attempted_at = now() WHERE id = $1`, [chat.id]);
    const now = new Date();
    expect(await findUntitledChats(file.env.pool, now, 10_000)).not.toContain(chat.id);
    const later = new Date(now.getTime() + TITLE_RETRY_AFTER_MS + 60_000);
    expect(await findUntitledChats(file.env.pool, later, 10_000)).toContain(chat.id);
    // Out of attempts, or titled by a user: no longer.
    await file.env.pool.query(`UPDATE chats SET title_attempts = $2 WHERE id = $1`, [chat.id, TITLE_MAX_ATTEMPTS]);
    expect(await findUntitledChats(file.env.pool, later, 10_000)).not.toContain(chat.id);
  });
});

describe("the summary and status label after a turn", () => {
  async function finishedTurn(prompt: string) {
    const { chat } = await newChat(prompt);
    // The turn's answer, as the runner commits it.
    await file.env.pool.query(`INSERT INTO chat_messages (chat_id, role, content) VALUES ($1, 'assistant', $2)`, [
      chat.id,
      JSON.stringify(text("Here is a plan.")),
    ]);
    return { chat: await row(chat.id), rows: await history(file.env, chat.id) };
  }

  it("writes both fields from the turn's model, tagged with the turn's history version", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const { chat, rows } = await finishedTurn(`plan a week in Porto ${tag}`);
    const { deps, models, settled } = backgroundDeps();
    const changed: ChatRow[] = [];
    const summaries = new SummaryGenerator({ ...deps, summaryChanged: (c) => changed.push(c) });
    const turnModel: ResolvedModelConfig = { ...orgDefault, config: { ...orgDefault.config, model: "the-turn-model" } };
    summaries.afterTurn(chat, rows, turnModel);
    await settled();
    expect(models).toEqual(["the-turn-model"]);
    const after = await row(chat.id);
    expect(after).toMatchObject({
      summary: `The user asked: plan a week in Porto ${tag}`,
      lastTurnSummary: `Replied to: plan a week in Porto ${tag}`,
      summaryHistoryVersion: chat.historyVersion,
    });
    expect(after.summaryUpdatedAt).not.toBeNull();
    expect(changed.map((c) => c.lastTurnSummary)).toEqual([after.lastTurnSummary]);
    // A metadata write: no snapshot bump, updated_at untouched.
    expect(after.snapshotVersion).toBe(chat.snapshotVersion);
    expect(after.updatedAt.getTime()).toBe(chat.updatedAt.getTime());
  });

  it("a summary of an older history never replaces a newer one", async () => {
    const { chat } = await finishedTurn(`order ${crypto.randomUUID().slice(0, 8)}`);
    const newer = await writeSummary(file.env.pool, chat.id, { summary: "newer", lastTurnSummary: "Did B", historyVersion: 10 });
    expect(newer?.summary).toBe("newer");
    expect(await writeSummary(file.env.pool, chat.id, { summary: "older", lastTurnSummary: "Did A", historyVersion: 9 })).toBeNull();
    expect(await writeSummary(file.env.pool, chat.id, { summary: "same", lastTurnSummary: "Did A", historyVersion: 10 })).toBeNull();
    expect(await row(chat.id)).toMatchObject({ summary: "newer", lastTurnSummary: "Did B", summaryHistoryVersion: 10 });
  });

  it("a call that fails leaves the chat as it was", async () => {
    const { chat, rows } = await finishedTurn(`/nonstream-error 503 again ${crypto.randomUUID().slice(0, 8)}`);
    const { deps, models, settled } = backgroundDeps({ CHAT_MAX_GENERATION_RETRIES: 1, CHAT_RETRY_INITIAL_DELAY_MS: 1 });
    const changed: ChatRow[] = [];
    const summaries = new SummaryGenerator({ ...deps, summaryChanged: (c) => changed.push(c) });
    summaries.afterTurn(chat, rows);
    await settled();
    expect(changed).toEqual([]);
    // The first attempt and its one retry, both 503.
    expect(models).toEqual(["org-default", "org-default"]);
    expect(await row(chat.id)).toMatchObject({ summary: null, lastTurnSummary: null, summaryHistoryVersion: null });
  });
});
