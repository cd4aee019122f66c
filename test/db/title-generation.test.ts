/**
 * The title after a chat's first turn (src/chat-worker/title-generation.ts) against the real
 * Postgres and the fake model over HTTP: it calls the model the turn just used when the runner
 * hands it over, and the chat's own model (the organization's default here) when not.
 */
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { AttributionKeyCache } from "../../src/chat-worker/attribution";
import { TitleGenerator } from "../../src/chat-worker/title-generation";
import { createDb } from "../../src/db/client";
import type { Config } from "../../src/config/env";
import type { Database } from "../../src/db/database";
import type { ChatRow } from "../../src/db/schema/chats";
import { createModelConfig, createProvider } from "../../src/model-configs/index";
import type { ResolvedModelConfig } from "../../src/model-configs/resolve";
import { history, makeEnv, text, type Env } from "./fixtures";

let env: Env;
let db: Database;
let orgDefault: ResolvedModelConfig;
beforeAll(async () => {
  env = await makeEnv();
  db = createDb(env.pool) as unknown as Database;
  const provider = await createProvider(db, {
    type: "openai-compatible",
    name: `fake-${crypto.randomUUID()}`,
    baseUrl: `${inject("fakeModelUrl")}/v1`,
  });
  const config = await createModelConfig(
    db,
    env.owner.organizationId,
    { providerId: provider.id, model: "org-default", isDefault: true },
    new Date(),
  );
  orgDefault = { config, provider };
});
afterAll(() => env.pool.end());

/** A generator whose model requests are recorded (the `model` of each body), and its background work. */
function generator() {
  const models: string[] = [];
  const work: Promise<unknown>[] = [];
  const titled: ChatRow[] = [];
  const titles = new TitleGenerator({
    store: env.store,
    db,
    config: { CHAT_MAX_GENERATION_RETRIES: 0 } as Config,
    sleep: () => Promise.resolve(),
    now: () => new Date(),
    attributionKeys: new AttributionKeyCache(),
    fetch: async (input, init) => {
      models.push((JSON.parse(String(init?.body)) as { model: string }).model);
      return fetch(input, init);
    },
    background: (p) => work.push(p),
    titleChanged: (chat) => titled.push(chat),
  });
  return { titles, models, titled, settled: () => Promise.all(work) };
}

async function newChat() {
  const created = await env.store.create({
    organizationId: env.owner.organizationId,
    ownerId: env.owner.userId,
    content: text(`plan a trip to the coast ${crypto.randomUUID().slice(0, 8)}`),
  });
  return { chat: created.chat, history: await history(env, created.chat.id) };
}

describe("the title after a chat's first turn", () => {
  it("calls the model the turn used when the runner hands it over", async () => {
    const { chat, history: rows } = await newChat();
    const turnModel: ResolvedModelConfig = { ...orgDefault, config: { ...orgDefault.config, model: "the-turn-model" } };
    const g = generator();
    g.titles.afterTurn(chat, rows, turnModel);
    await g.settled();
    expect(g.models).toEqual(["the-turn-model"]);
    expect(g.titled.map((c) => [c.id, c.titleSource])).toEqual([[chat.id, "generated"]]);
  });

  it("resolves the chat's own model otherwise", async () => {
    const { chat, history: rows } = await newChat();
    const g = generator();
    g.titles.afterTurn(chat, rows);
    await g.settled();
    expect(g.models).toEqual(["org-default"]);
    expect(g.titled.map((c) => c.titleSource)).toEqual(["generated"]);
  });
});
