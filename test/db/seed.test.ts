/**
 * The dev seed on a fresh database: everything created on the first run, reused on the second,
 * with a fresh token each run that replaces the previous one.
 */
import { and, count, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_EMAIL, DEV_MODEL, DEV_PROVIDER_NAME, DEV_TOKEN_NAME, seedDev } from "../../scripts/lib/seed";
import { parseToken, verifySecret } from "../../src/accounts/token";
import { getApiKey } from "../../src/accounts/api-keys";
import { getMemberRole } from "../../src/accounts/organizations";
import { findUserByEmail } from "../../src/accounts/users";
import { apiKeys, organizations, users } from "../../src/db/schema/auth";
import { chatModelConfigs, chatProviders } from "../../src/db/schema/models";
import { createOwnDatabase, type OwnDatabase } from "./support/own-database";

describe("seedDev", () => {
  let own: OwnDatabase;
  beforeAll(async () => {
    own = await createOwnDatabase("seed");
  });
  afterAll(async () => own?.drop());

  it("creates an owner, the default organization, the fake provider and a default model config, then reuses them", async () => {
    const first = await seedDev({ databaseUrl: own.url, fakeModelUrl: "http://127.0.0.1:8790" });
    const second = await seedDev({ databaseUrl: own.url, fakeModelUrl: "http://127.0.0.1:9999/" });
    expect(second.user_id).toBe(first.user_id);
    expect(second.organization_id).toBe(first.organization_id);

    const owner = await findUserByEmail(own.db, DEV_EMAIL);
    expect(owner?.id).toBe(first.user_id);
    expect(owner?.siteRoles).toEqual(["owner"]);
    expect(await getMemberRole(own.db, first.organization_id, first.user_id)).toBe("owner");
    const [u] = await own.db.select({ n: count() }).from(users);
    const [o] = await own.db.select({ n: count() }).from(organizations);
    expect([u?.n, o?.n]).toEqual([1, 1]);

    const providers = await own.db.select().from(chatProviders).where(eq(chatProviders.name, DEV_PROVIDER_NAME));
    expect(providers).toHaveLength(1);
    expect(providers[0]?.type).toBe("openai-compatible");
    // The second run follows the fake model server to its new port.
    expect(providers[0]?.baseUrl).toBe("http://127.0.0.1:9999/v1");

    const configs = await own.db
      .select()
      .from(chatModelConfigs)
      .where(and(eq(chatModelConfigs.organizationId, first.organization_id), isNull(chatModelConfigs.deletedAt)));
    expect(configs).toHaveLength(1);
    expect(configs[0]?.model).toBe(DEV_MODEL);
    expect(configs[0]?.isDefault).toBe(true);
  });

  it("mints a fresh working token each run and retires the previous one", async () => {
    const a = await seedDev({ databaseUrl: own.url, fakeModelUrl: "http://127.0.0.1:8790" });
    const b = await seedDev({ databaseUrl: own.url, fakeModelUrl: "http://127.0.0.1:8790" });
    expect(b.token).not.toBe(a.token);
    const pa = parseToken(a.token);
    const pb = parseToken(b.token);
    expect(await getApiKey(own.db, pa?.id ?? "")).toBeNull();
    const key = await getApiKey(own.db, pb?.id ?? "");
    expect(key?.tokenName).toBe(DEV_TOKEN_NAME);
    expect(await verifySecret(pb?.secret ?? "", key?.hashedSecret ?? "")).toBe(true);
    const devKeys = await own.db.select().from(apiKeys).where(eq(apiKeys.tokenName, DEV_TOKEN_NAME));
    expect(devKeys).toHaveLength(1);
  });
});
