/**
 * Model-config write serialization and the exactly-one-default invariant (spec "Model
 * configuration write serialization"), and model resolution for chat writes, on a real Postgres.
 */
import { and, count, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createModelConfig,
  createProvider,
  deleteModelConfig,
  deleteProvider,
  listModelConfigs,
  ModelConfigUnavailableError,
  NoDefaultModelConfigError,
  ProviderInUseError,
  resolveModelConfig,
  UnknownProviderError,
  updateModelConfig,
  updateProvider,
} from "../../src/model-configs/index";
import { chatModelConfigs, chatProviders } from "../../src/db/schema/models";
import { organizations } from "../../src/db/schema/auth";
import { createOwnDatabase, type OwnDatabase } from "./support/own-database";
import { openedProvider } from "../../src/model-configs/provider-secrets";
import { SecretUnreadableError } from "../../src/secrets/errors";
import { testKeys } from "../support/test-keys";

let own: OwnDatabase;
let enabledProvider: string;
let disabledProvider: string;

beforeAll(async () => {
  own = await createOwnDatabase("model_configs");
  enabledProvider = (await createProvider(own.db, { type: "openai-compatible", name: "on", baseUrl: "http://127.0.0.1:1/v1" }, testKeys))
    .id;
  disabledProvider = (
    await createProvider(own.db, { type: "openai-compatible", name: "off", baseUrl: "http://127.0.0.1:1/v1", enabled: false }, testKeys)
  ).id;
});
afterAll(async () => own?.drop());

async function newOrg(): Promise<string> {
  const [org] = await own.db
    .insert(organizations)
    .values({ name: `org-${crypto.randomUUID()}` })
    .returning();
  if (!org) throw new Error("no org");
  return org.id;
}

async function defaults(orgId: string): Promise<string[]> {
  const rows = await listModelConfigs(own.db, orgId);
  return rows.filter((r) => r.isDefault).map((r) => r.id);
}

const at = (n: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, n));

describe("exactly one default", () => {
  it("promotes an organization's first config and keeps the default on later ones unless asked", async () => {
    const org = await newOrg();
    const first = await createModelConfig(own.db, org, { providerId: enabledProvider, model: "a" }, at(1));
    expect(first.isDefault).toBe(true);
    const second = await createModelConfig(own.db, org, { providerId: enabledProvider, model: "b" }, at(2));
    expect(second.isDefault).toBe(false);
    expect(await defaults(org)).toEqual([first.id]);
  });

  it("moves the default to a config created or patched with is_default", async () => {
    const org = await newOrg();
    await createModelConfig(own.db, org, { providerId: enabledProvider, model: "a" }, at(1));
    const b = await createModelConfig(own.db, org, { providerId: enabledProvider, model: "b", isDefault: true }, at(2));
    expect(await defaults(org)).toEqual([b.id]);
    const c = await createModelConfig(own.db, org, { providerId: enabledProvider, model: "c" }, at(3));
    const patched = await updateModelConfig(own.db, org, c.id, { isDefault: true }, at(4));
    expect(patched?.isDefault).toBe(true);
    expect(await defaults(org)).toEqual([c.id]);
  });

  it("leaves exactly one default after ten concurrent creates that each ask to be it", async () => {
    const org = await newOrg();
    const created = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        createModelConfig(own.db, org, { providerId: enabledProvider, model: `m${i}`, isDefault: true }, new Date()),
      ),
    );
    expect(created).toHaveLength(10);
    expect(await defaults(org)).toHaveLength(1);
  });

  it("self-promotes exactly one of ten concurrent first configs", async () => {
    const org = await newOrg();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => createModelConfig(own.db, org, { providerId: enabledProvider, model: `m${i}` }, new Date())),
    );
    expect(await defaults(org)).toHaveLength(1);
  });

  it("on deleting the default elects an enabled config with an enabled provider over older ones that are not", async () => {
    const org = await newOrg();
    const def = await createModelConfig(own.db, org, { providerId: enabledProvider, model: "default" }, at(1));
    await createModelConfig(own.db, org, { providerId: enabledProvider, model: "disabled", enabled: false }, at(2));
    await createModelConfig(own.db, org, { providerId: disabledProvider, model: "provider-off" }, at(3));
    const good = await createModelConfig(own.db, org, { providerId: enabledProvider, model: "good" }, at(4));
    expect(await deleteModelConfig(own.db, org, def.id, at(5))).toBe(true);
    expect(await defaults(org)).toEqual([good.id]);
  });

  it("falls back to any live config when none is enabled with an enabled provider", async () => {
    const org = await newOrg();
    const def = await createModelConfig(own.db, org, { providerId: enabledProvider, model: "default" }, at(1));
    const older = await createModelConfig(own.db, org, { providerId: disabledProvider, model: "provider-off" }, at(2));
    await createModelConfig(own.db, org, { providerId: enabledProvider, model: "disabled", enabled: false }, at(3));
    await deleteModelConfig(own.db, org, def.id, at(4));
    expect(await defaults(org)).toEqual([older.id]);
  });

  it("on demoting the default elects another, never the demoted one while others exist", async () => {
    const org = await newOrg();
    const def = await createModelConfig(own.db, org, { providerId: enabledProvider, model: "default" }, at(1));
    const other = await createModelConfig(own.db, org, { providerId: disabledProvider, model: "other" }, at(2));
    const demoted = await updateModelConfig(own.db, org, def.id, { isDefault: false }, at(3));
    expect(demoted?.isDefault).toBe(false);
    expect(await defaults(org)).toEqual([other.id]);
  });

  it("promotes the only config again when it is explicitly demoted", async () => {
    const org = await newOrg();
    const only = await createModelConfig(own.db, org, { providerId: enabledProvider, model: "only" }, at(1));
    const after = await updateModelConfig(own.db, org, only.id, { isDefault: false }, at(2));
    expect(after?.isDefault).toBe(true);
    expect(await defaults(org)).toEqual([only.id]);
  });

  it("has no default once the last config is deleted, and the next config promotes itself", async () => {
    const org = await newOrg();
    const only = await createModelConfig(own.db, org, { providerId: enabledProvider, model: "only" }, at(1));
    await deleteModelConfig(own.db, org, only.id, at(2));
    expect(await listModelConfigs(own.db, org)).toEqual([]);
    const next = await createModelConfig(own.db, org, { providerId: enabledProvider, model: "next" }, at(3));
    expect(next.isDefault).toBe(true);
  });

  it("treats another organization's config as missing", async () => {
    const org = await newOrg();
    const otherOrg = await newOrg();
    const cfg = await createModelConfig(own.db, org, { providerId: enabledProvider, model: "mine" }, at(1));
    expect(await updateModelConfig(own.db, otherOrg, cfg.id, { model: "stolen" }, at(2))).toBeNull();
    expect(await deleteModelConfig(own.db, otherOrg, cfg.id, at(2))).toBe(false);
    expect((await listModelConfigs(own.db, org))[0]?.model).toBe("mine");
  });

  it("refuses an unknown provider and writes nothing", async () => {
    const org = await newOrg();
    await expect(createModelConfig(own.db, org, { providerId: crypto.randomUUID(), model: "x" }, at(1))).rejects.toBeInstanceOf(
      UnknownProviderError,
    );
    expect(await listModelConfigs(own.db, org)).toEqual([]);
  });
});

describe("resolveModelConfig", () => {
  let org: string;
  let usable: string;
  let disabled: string;
  let providerOff: string;
  let noKey: string;
  let deleted: string;
  beforeAll(async () => {
    org = await newOrg();
    const keyless = (await createProvider(own.db, { type: "openai", name: "openai-without-key" }, testKeys)).id;
    usable = (await createModelConfig(own.db, org, { providerId: enabledProvider, model: "usable", isDefault: true }, at(1))).id;
    disabled = (await createModelConfig(own.db, org, { providerId: enabledProvider, model: "disabled", enabled: false }, at(2))).id;
    providerOff = (await createModelConfig(own.db, org, { providerId: disabledProvider, model: "provider-off" }, at(3))).id;
    noKey = (await createModelConfig(own.db, org, { providerId: keyless, model: "no-key" }, at(4))).id;
    deleted = (await createModelConfig(own.db, org, { providerId: enabledProvider, model: "deleted" }, at(5))).id;
    await deleteModelConfig(own.db, org, deleted, at(6));
  });

  it("returns an explicit usable config with its provider", async () => {
    const r = await resolveModelConfig(own.db, { organizationId: org, modelConfigId: usable });
    expect(r.config.id).toBe(usable);
    expect(r.provider.id).toBe(enabledProvider);
  });

  it("returns the organization's default when none is given", async () => {
    expect((await resolveModelConfig(own.db, { organizationId: org })).config.id).toBe(usable);
  });

  it.each([
    ["disabled", (): string => disabled],
    ["provider_disabled", (): string => providerOff],
    ["provider_unavailable", (): string => noKey],
    ["deleted", (): string => deleted],
    ["not_found", (): string => crypto.randomUUID()],
    ["not_found", (): string => "not-a-uuid"],
  ] as const)("rejects an explicit config: %s", async (reason, id) => {
    const err = await resolveModelConfig(own.db, { organizationId: org, modelConfigId: id() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelConfigUnavailableError);
    expect((err as ModelConfigUnavailableError).reason).toBe(reason);
  });

  it("rejects another organization's config as not found, never falling back to it", async () => {
    const otherOrg = await newOrg();
    const err = await resolveModelConfig(own.db, { organizationId: otherOrg, modelConfigId: usable }).catch((e: unknown) => e);
    expect((err as ModelConfigUnavailableError).reason).toBe("not_found");
    const none = await resolveModelConfig(own.db, { organizationId: otherOrg }).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(NoDefaultModelConfigError);
    expect((none as NoDefaultModelConfigError).reason).toBe("not_found");
  });

  it("reports an unusable default as no default", async () => {
    const org2 = await newOrg();
    const cfg = await createModelConfig(own.db, org2, { providerId: enabledProvider, model: "off", enabled: false }, at(1));
    expect(cfg.isDefault).toBe(true);
    const err = await resolveModelConfig(own.db, { organizationId: org2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoDefaultModelConfigError);
    expect((err as NoDefaultModelConfigError).reason).toBe("disabled");
  });
});

describe("deleting providers", () => {
  it("refuses while a live config uses it, then deletes it with its dead configs", async () => {
    const org = await newOrg();
    const provider = await createProvider(own.db, { type: "anthropic", name: `doomed-${crypto.randomUUID()}`, apiKey: "sk-ant" }, testKeys);
    const cfg = await createModelConfig(own.db, org, { providerId: provider.id, model: "claude" }, at(1));
    await expect(deleteProvider(own.db, provider.id)).rejects.toBeInstanceOf(ProviderInUseError);
    await deleteModelConfig(own.db, org, cfg.id, at(2));
    expect(await deleteProvider(own.db, provider.id)).toBe(true);
    const [left] = await own.db.select({ n: count() }).from(chatModelConfigs).where(eq(chatModelConfigs.providerId, provider.id));
    expect(left?.n).toBe(0);
    expect(await deleteProvider(own.db, provider.id)).toBe(false);
  });

  it("updates only the fields given; null clears the key", async () => {
    const p = await createProvider(own.db, { type: "openai", name: `patch-${crypto.randomUUID()}`, apiKey: "sk-1" }, testKeys);
    const renamed = await updateProvider(own.db, p.id, { name: `${p.name}-x` }, new Date(), testKeys);
    expect(renamed?.apiKey).toBe(p.apiKey);
    expect((await openedProvider(testKeys, renamed!)).apiKey).toBe("sk-1");
    const cleared = await updateProvider(own.db, p.id, { apiKey: null }, new Date(), testKeys);
    expect([cleared?.apiKey, cleared?.apiKeySealedWith]).toEqual([null, null]);
    const [row] = await own.db
      .select()
      .from(chatProviders)
      .where(and(eq(chatProviders.id, p.id), isNull(chatProviders.apiKey)));
    expect(row?.name).toBe(`${p.name}-x`);
  });

  it("stores the key sealed and bound to its row; a key from before sealing is read as it is", async () => {
    const SECRET = `sk-live-${crypto.randomUUID()}`;
    const p = await createProvider(own.db, { type: "openai", name: `sealed-${crypto.randomUUID()}`, apiKey: SECRET }, testKeys);
    const other = await createProvider(own.db, { type: "openai", name: `other-${crypto.randomUUID()}`, apiKey: "sk-2" }, testKeys);
    const stored = async (id: string) =>
      (await own.pool.query("SELECT api_key, api_key_sealed_with FROM chat_providers WHERE id = $1", [id])).rows[0] as {
        api_key: string;
        api_key_sealed_with: string | null;
      };
    const raw = await stored(p.id);
    expect(raw.api_key_sealed_with).toBe(testKeys.currentId);
    expect(raw.api_key).toMatch(/^v1:/);
    expect(raw.api_key).not.toContain(SECRET);
    expect((await openedProvider(testKeys, p)).apiKey).toBe(SECRET);
    // Moved to another provider's row, the ciphertext no longer opens.
    await own.pool.query("UPDATE chat_providers SET api_key = $2 WHERE id = $1", [other.id, raw.api_key]);
    const moved = (await own.db.select().from(chatProviders).where(eq(chatProviders.id, other.id)))[0]!;
    await expect(openedProvider(testKeys, moved)).rejects.toBeInstanceOf(SecretUnreadableError);
    // A row written before migration 0015: plaintext, no key id.
    await own.pool.query("UPDATE chat_providers SET api_key = 'sk-legacy', api_key_sealed_with = NULL WHERE id = $1", [other.id]);
    const legacy = (await own.db.select().from(chatProviders).where(eq(chatProviders.id, other.id)))[0]!;
    expect((await openedProvider(testKeys, legacy)).apiKey).toBe("sk-legacy");
  });
});
