/**
 * The turn's model chosen from candidates read inside another statement (src/model-configs/turn-model-rows.ts)
 * is the model a read of its own would choose (src/chat-worker/model-for-turn.ts), in every case the
 * spec's revalidation distinguishes; likewise the compaction gate's setup (src/chat-worker/compaction-setup.ts)
 * from the owner's threshold and override read there; and the runner's reads carry those rows.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { modelForTurn } from "../../src/chat-worker/model-for-turn";
import { compactionSetup } from "../../src/chat-worker/compaction-setup";
import { setChatPreferences } from "../../src/chats/chat-preferences";
import { setModelOverride } from "../../src/model-configs/model-overrides";
import { fencedRead, turnModelsAtCommit } from "../../src/chat-worker/fenced-db";
import { commitStep } from "../../src/chats/transitions/index";
import { acquireChat } from "../../src/chat-worker/leases/admission";
import { NO_SHARES } from "../../src/chat-worker/leases/pools";
import type { Database } from "../../src/db/database";
import { chatFromRaw } from "../../src/db/rows";
import { createModelConfig, createProvider, deleteModelConfig, updateModelConfig } from "../../src/model-configs/index";
import { turnModelRowsFromJson, turnModelRowsSql, type TurnModelRows } from "../../src/model-configs/turn-model-rows";
import { fileEnv, makeOwner, text } from "./fixtures";
import { recordQueries } from "./support/record-queries";
import { testKeys } from "../support/test-keys";

const file = fileEnv();
let onProvider: string;
let offProvider: string;
beforeAll(async () => {
  const { db } = file;
  const tag = crypto.randomUUID();
  onProvider = (await createProvider(db, { type: "openai-compatible", name: `on-${tag}`, baseUrl: "http://127.0.0.1:1/v1" }, testKeys)).id;
  offProvider = (
    await createProvider(db, { type: "openai-compatible", name: `off-${tag}`, baseUrl: "http://127.0.0.1:1/v1", enabled: false }, testKeys)
  ).id;
});

/** A chat of a new organization whose configs `setup` makes; its last model is what `setup` answers. */
async function chatWith(setup: (org: string) => Promise<string | null>) {
  const owner = await makeOwner(file.env.pool);
  const last = await setup(owner.organizationId);
  const created = await file.env.store.create({ organizationId: owner.organizationId, ownerId: owner.userId, content: text("hi") });
  const { rows } = await file.env.pool.query(`UPDATE chats SET last_model_config_id = $2 WHERE id = $1 RETURNING *`, [
    created.chat.id,
    last,
  ]);
  return chatFromRaw(rows[0]!);
}

async function rowsOf(chatId: string): Promise<TurnModelRows> {
  const { rows } = await file.env.pool.query(`SELECT ${turnModelRowsSql("c")} AS models FROM chats c WHERE c.id = $1`, [chatId]);
  return turnModelRowsFromJson(rows[0]!.models);
}

/** What modelForTurn answers: the config and provider, or the error's class and reason. */
async function outcome(run: () => Promise<unknown>) {
  try {
    return { resolved: await run() };
  } catch (err) {
    return { error: (err as Error).name, reason: (err as { reason?: string }).reason };
  }
}

const config = (org: string, model: string, extra: { enabled?: boolean; isDefault?: boolean; provider?: string } = {}) =>
  createModelConfig(
    file.db,
    org,
    { providerId: extra.provider ?? onProvider, model, enabled: extra.enabled, isDefault: extra.isDefault },
    new Date(),
  );

/** The organization's default ("def") first, then the config `chat` makes; answers that config's id (or null). */
const afterDefault = (chat: (org: string) => Promise<{ id: string } | null>) => async (org: string) => {
  await config(org, "def");
  return (await chat(org))?.id ?? null;
};

const CASES: [string, (org: string) => Promise<string | null>, string][] = [
  ["the chat's usable config, not the default", afterDefault((org) => config(org, "mine")), "mine"],
  ["a disabled config falls back to the default", afterDefault((org) => config(org, "off", { enabled: false })), "def"],
  ["a config whose provider is disabled falls back", afterDefault((org) => config(org, "p-off", { provider: offProvider })), "def"],
  [
    "a deleted config falls back",
    afterDefault(async (org) => {
      const gone = await config(org, "gone");
      await deleteModelConfig(file.db, org, gone.id, new Date());
      return gone;
    }),
    "def",
  ],
  [
    "another organization's config falls back",
    afterDefault(async () => config((await makeOwner(file.env.pool)).organizationId, "theirs")),
    "def",
  ],
  ["no config: the default", afterDefault(async () => null), "def"],
  [
    "no config and a disabled default: no default",
    async (org) => {
      await config(org, "off", { enabled: false });
      return null;
    },
    "NoDefaultModelConfigError",
  ],
  ["no config and no default: no default", async () => null, "NoDefaultModelConfigError"],
];

describe("the turn's model from candidates read in the chat's statement", () => {
  it.each(CASES)("%s", async (_name, setup, expected) => {
    const chat = await chatWith(setup);
    const own = await outcome(() => modelForTurn(file.db, chat));
    const rows = await rowsOf(chat.id);
    const fromRows = await outcome(() => modelForTurn(file.db, chat, rows));
    expect(fromRows).toEqual(own);
    const found = fromRows as { resolved?: { config: { model: string } }; error?: string };
    expect(found.resolved?.config.model ?? found.error).toBe(expected);
  });

  it("comes with the runner's fenced read and with the acquisition's starting read", async () => {
    const chat = await chatWith(afterDefault((org) => config(org, "mine")));
    const workerId = crypto.randomUUID();
    const runnerId = crypto.randomUUID();
    const acquired = await acquireChat(file.env.store, chat.id, {
      workerId,
      runnerId,
      limits: { root: 0, subagent: 0 },
      shares: NO_SHARES,
      staleThresholdMs: 30_000,
      withHistory: true,
    });
    if (acquired.kind !== "acquired") throw new Error(`not acquired: ${acquired.kind}`);
    expect(acquired.models).toEqual(await rowsOf(chat.id));
    expect(acquired.models?.chosen?.config.model).toBe("mine");
    const read = await fencedRead(file.env.store, {
      chatId: chat.id,
      workerId,
      runnerId,
      historyVersion: acquired.chat.historyVersion,
      status: "running",
    });
    expect(read.models).toEqual(acquired.models);
  });

  it("come with a commit write only when wanted, asked as the commit write is built", async () => {
    const chat = await chatWith(afterDefault((org) => config(org, "mine")));
    const commitWithCandidates = async (wanted: boolean) => {
      const found: TurnModelRows[] = [];
      const recorded = recordQueries(file.env.pool);
      let asked = false;
      try {
        await file.env.store.update(chat.id, async (tx) => {
          tx.checkAtCommit(
            turnModelsAtCommit(
              (rows) => found.push(rows),
              () => {
                asked = true;
                return wanted;
              },
            ),
          );
          await commitStep(tx, { messages: [{ role: "assistant", content: text("noted") }] });
          expect(asked).toBe(false);
        });
      } finally {
        recorded.stop();
      }
      return { found, asked, commitWrite: recorded.sent.find((q) => q.includes("COMMIT")) ?? "" };
    };
    const without = await commitWithCandidates(false);
    expect(without.asked).toBe(true);
    expect(without.found).toEqual([]);
    expect(without.commitWrite).not.toContain("AS models");
    const withRows = await commitWithCandidates(true);
    expect(withRows.found).toEqual([await rowsOf(chat.id)]);
    expect(withRows.commitWrite).toContain("AS models");
  });
});

/** A database that fails any use: the setup from rows must read nothing. */
const NO_DATABASE = new Proxy({} as Database, {
  get: () => {
    throw new Error("compactionSetup read the database although the rows came with the chat's statement");
  },
});

/** The owner's threshold and the organization's compaction override as `setup` leaves them. */
const COMPACTION_CASES: [string, (chat: { organizationId: string; ownerId: string }) => Promise<void>, number | null, string | null][] = [
  ["no preference, no override", async () => {}, null, null],
  [
    "the owner's threshold",
    async (chat) => {
      await setChatPreferences(file.db, chat.ownerId, { compactionThresholdPercent: 42 });
    },
    42,
    null,
  ],
  [
    "a usable override",
    async (chat) => {
      await setModelOverride(file.db, chat.organizationId, "compaction", (await config(chat.organizationId, "summarizer")).id);
    },
    null,
    "summarizer",
  ],
  [
    "an override disabled since: the chat model summarizes",
    async (chat) => {
      const summarizer = await config(chat.organizationId, "summarizer");
      await setModelOverride(file.db, chat.organizationId, "compaction", summarizer.id);
      await updateModelConfig(file.db, chat.organizationId, summarizer.id, { enabled: false }, new Date());
    },
    null,
    null,
  ],
  [
    "an override deleted since",
    async (chat) => {
      const summarizer = await config(chat.organizationId, "summarizer");
      await setModelOverride(file.db, chat.organizationId, "compaction", summarizer.id);
      await deleteModelConfig(file.db, chat.organizationId, summarizer.id, new Date());
    },
    null,
    null,
  ],
  [
    "an override whose provider is disabled since",
    async (chat) => {
      const provider = (
        await createProvider(
          file.db,
          { type: "openai-compatible", name: `p-${crypto.randomUUID()}`, baseUrl: "http://127.0.0.1:1/v1" },
          testKeys,
        )
      ).id;
      await setModelOverride(
        file.db,
        chat.organizationId,
        "compaction",
        (await config(chat.organizationId, "summarizer", { provider })).id,
      );
      await file.env.pool.query(`UPDATE chat_providers SET enabled = false WHERE id = $1`, [provider]);
    },
    null,
    null,
  ],
];

describe("the compaction gate's setup from the rows read in the chat's statement", () => {
  it.each(COMPACTION_CASES)("%s", async (_name, setup, threshold, overrideModel) => {
    const chat = await chatWith(afterDefault(async () => null));
    await setup(chat);
    const chatModel = await modelForTurn(file.db, chat);
    const own = await compactionSetup(file.db, chat, chatModel);
    const fromRows = await compactionSetup(NO_DATABASE, chat, chatModel, (await rowsOf(chat.id)).compaction);
    expect(fromRows).toEqual(own);
    expect(fromRows.override?.config.model ?? null).toBe(overrideModel);
    expect((await rowsOf(chat.id)).compaction.ownerThresholdPercent).toBe(threshold);
  });
});
