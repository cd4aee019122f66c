/**
 * The dev seed: an owner, the default organization, a provider pointing at the fake model server
 * and a default model config, created on the first run and reused after (the provider's URL is
 * refreshed, since the fake model's port may change). Each run replaces the owner's dev token and
 * gives the owner a new random password, for the web app's sign-in (both in the credentials file).
 * It runs the Worker's own account and model-config code over node-postgres, so seeded rows are
 * exactly what the API would have written.
 */
import { and, eq, isNull } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { SITE_OWNER } from "../../src/accounts/roles";
import { createApiKey, deleteApiKeysByName, TOKEN_LOGIN_TYPE } from "../../src/accounts/api-keys";
import { FirstUserExistsError } from "../../src/accounts/errors";
import { addMember, ensureDefaultOrganization } from "../../src/accounts/organizations";
import { createFirstUser, createUser, findUserByEmail, setPassword, type UserRow } from "../../src/accounts/users";
import { base64Url } from "../../src/accounts/token";
import type { Database } from "../../src/db/database";
import { createModelConfig } from "../../src/model-configs/configs";
import { createProvider, findProviderByName, type ProviderRow, updateProvider } from "../../src/model-configs/providers";
import * as schema from "../../src/db/schema/index";
import { KeyRing } from "../../src/secrets/key-ring";
import { TEST_SECRETS_KEYS } from "./test-secrets-keys";

export const DEV_EMAIL = "dev@chatd.local";
export const DEV_USERNAME = "dev";
export const DEV_PROVIDER_NAME = "fake";
export const DEV_MODEL = "fake-echo";
export const DEV_TOKEN_NAME = "dev-seed";
const DEV_TOKEN_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

export interface SeedOptions {
  databaseUrl: string;
  /** The fake model server's base URL, without `/v1`. */
  fakeModelUrl: string;
  /** The Worker's CHAT_SECRETS_KEYS; the test harness's fixed ones by default (localWorkerVars gives a workerd the same). */
  keys?: KeyRing;
}

export interface SeedResult {
  token: string;
  email: string;
  password: string;
  user_id: string;
  organization_id: string;
}

export async function seedDev(opts: SeedOptions): Promise<SeedResult> {
  const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 2 });
  const db: Database = drizzle({ client: pool, schema, casing: "snake_case" });
  try {
    const now = new Date();
    const user = await ensureOwner(db);
    const password = base64Url(crypto.getRandomValues(new Uint8Array(12)));
    await setPassword(db, user.id, password);
    const organization = await ensureDefaultOrganization(db);
    await addMember(db, organization.id, user.id, "admin");
    const provider = await ensureFakeProvider(
      db,
      `${opts.fakeModelUrl.replace(/\/+$/, "")}/v1`,
      now,
      opts.keys ?? KeyRing.parse(TEST_SECRETS_KEYS),
    );
    await ensureModelConfig(db, organization.id, provider.id, now);
    // The old dev token dies with this run's credentials file; one live dev token at a time.
    const { token } = await db.transaction(async (tx) => {
      await deleteApiKeysByName(tx, user.id, DEV_TOKEN_NAME, TOKEN_LOGIN_TYPE);
      return createApiKey(tx, {
        userId: user.id,
        tokenName: DEV_TOKEN_NAME,
        loginType: TOKEN_LOGIN_TYPE,
        expiresAt: new Date(now.getTime() + DEV_TOKEN_LIFETIME_MS),
      });
    });
    return { token, email: DEV_EMAIL, password, user_id: user.id, organization_id: organization.id };
  } finally {
    await pool.end();
  }
}

/** The dev owner: the first user on a fresh database, otherwise a site owner added beside the others. */
async function ensureOwner(db: Database): Promise<UserRow> {
  const existing = await findUserByEmail(db, DEV_EMAIL);
  if (existing) return existing;
  try {
    return (await createFirstUser(db, { email: DEV_EMAIL, username: DEV_USERNAME }, new Date())).user;
  } catch (err) {
    if (!(err instanceof FirstUserExistsError)) throw err;
    const organization = await ensureDefaultOrganization(db);
    return createUser(db, {
      email: DEV_EMAIL,
      username: DEV_USERNAME,
      siteRoles: [SITE_OWNER],
      organizationId: organization.id,
      role: "admin",
    });
  }
}

async function ensureFakeProvider(db: Database, baseUrl: string, now: Date, keys: KeyRing): Promise<ProviderRow> {
  const existing = await findProviderByName(db, DEV_PROVIDER_NAME);
  if (!existing) return createProvider(db, { type: "openai-compatible", name: DEV_PROVIDER_NAME, baseUrl, enabled: true }, keys);
  if (existing.baseUrl === baseUrl && existing.enabled) return existing;
  return (await updateProvider(db, existing.id, { baseUrl, enabled: true }, now, keys)) ?? existing;
}

async function ensureModelConfig(db: Database, organizationId: string, providerId: string, now: Date): Promise<void> {
  const c = schema.chatModelConfigs;
  const [existing] = await db
    .select({ id: c.id })
    .from(c)
    .where(and(eq(c.organizationId, organizationId), eq(c.providerId, providerId), eq(c.model, DEV_MODEL), isNull(c.deletedAt)))
    .limit(1);
  if (existing) return;
  await createModelConfig(db, organizationId, { providerId, model: DEV_MODEL, displayName: "Fake (echo)", isDefault: true }, now);
}
