/**
 * The title after a chat's first turn (src/chat-worker/title-generation.ts) against the real
 * Postgres and the fake model over HTTP: it calls the model the turn just used when the runner
 * hands it over, and the chat's own model (the organization's default here) when not.
 */
import { beforeAll, describe, expect, it, inject } from "vitest";
import { AttributionKeyCache } from "../../src/chat-worker/attribution";
import { TitleGenerator } from "../../src/chat-worker/title-generation";
import type { Config } from "../../src/config/env";
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

/** A generator whose model requests are recorded (the `model` of each body), and its background work. */
function generator() {
  const models: string[] = [];
  const work: Promise<unknown>[] = [];
  const titled: ChatRow[] = [];
  const titles = new TitleGenerator({
    store: file.env.store,
    db: file.db,
    config: { CHAT_MAX_GENERATION_RETRIES: 0, CHAT_SECRETS_KEYS: testKeys } as Config,
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
  const created = await file.env.store.create({
    organizationId: file.env.owner.organizationId,
    ownerId: file.env.owner.userId,
    content: text(`plan a trip to the coast ${crypto.randomUUID().slice(0, 8)}`),
  });
  return { chat: created.chat, history: await history(file.env, created.chat.id) };
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
