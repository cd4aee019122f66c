// What configures compaction over HTTP: the caller's chat preferences (personal threshold) and the
// organization's compaction model override, with its composite foreign key.
import { describe, expect, it } from "vitest";
import { chatOrganizationModelOverrides } from "../../src/db/schema/compaction";
import { api, createOrg, createTestUser, expectJson, type TestUser, unique, withDb } from "./support/accounts";

interface ErrorJson {
  code: string;
  validations?: { field: string; detail: string }[];
}

const PREFS = "/users/me/chat-preferences";

const putPrefs = (u: TestUser, body: unknown) => api(PREFS, { method: "PUT", token: u.token, body });
const threshold = async (u: TestUser) =>
  (await expectJson<{ compaction_threshold_percent: number | null }>(await api(PREFS, { token: u.token }), 200))
    .compaction_threshold_percent;

describe("/users/me/chat-preferences", () => {
  it("starts unset, stores a threshold and clears it with null", async () => {
    const u = await createTestUser();
    expect(await threshold(u)).toBeNull();
    expect(await expectJson(await putPrefs(u, { compaction_threshold_percent: 35 }), 200)).toEqual({
      compaction_threshold_percent: 35,
      mcp_tool_search: null,
    });
    expect(await threshold(u)).toBe(35);
    for (const edge of [0, 100]) {
      await expectJson(await putPrefs(u, { compaction_threshold_percent: edge }), 200);
      expect(await threshold(u)).toBe(edge);
    }
    await expectJson(await putPrefs(u, { compaction_threshold_percent: null }), 200);
    expect(await threshold(u)).toBeNull();
  });

  it("refuses anything but a whole number in 0..100 (or null), and writes nothing", async () => {
    const u = await createTestUser();
    await expectJson(await putPrefs(u, { compaction_threshold_percent: 40 }), 200);
    for (const body of [
      { compaction_threshold_percent: 101 },
      { compaction_threshold_percent: -1 },
      { compaction_threshold_percent: 12.5 },
      { compaction_threshold_percent: "50" },
      {},
      { compaction_threshold_percent: 50, other: true },
    ]) {
      const error = await expectJson<ErrorJson>(await putPrefs(u, body), 400);
      expect(error.code).toBe("validation_failed");
      expect(error.validations?.length).toBeGreaterThan(0);
    }
    expect(await threshold(u)).toBe(40);
  });

  it("is the caller's own and needs a token", async () => {
    const a = await createTestUser();
    const b = await createTestUser();
    await expectJson(await putPrefs(a, { compaction_threshold_percent: 10 }), 200);
    expect(await threshold(b)).toBeNull();
    expect((await api(PREFS)).status).toBe(401);
    expect((await api(PREFS, { method: "PUT", body: { compaction_threshold_percent: 10 } })).status).toBe(401);
  });
});

async function providerId(): Promise<string> {
  const owner = await createTestUser({ siteOwner: true });
  const res = await api("/chats/providers", {
    token: owner.token,
    body: { type: "openai-compatible", name: unique("p-"), base_url: "http://127.0.0.1:9/v1" },
  });
  return (await expectJson<{ id: string }>(res, 201)).id;
}

async function modelConfig(admin: TestUser, org: string, provider: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api(`/organizations/${org}/chats/model-configs`, {
    token: admin.token,
    body: { provider_id: provider, model: unique("m-"), context_limit: 100_000, ...extra },
  });
  return (await expectJson<{ id: string }>(res, 201)).id;
}

async function setup() {
  const org = await createOrg();
  const other = await createOrg();
  const admin = await createTestUser({ organizationId: org, role: "admin" });
  const member = await createTestUser({ organizationId: org, role: "member" });
  const otherAdmin = await createTestUser({ organizationId: other, role: "admin" });
  const provider = await providerId();
  const config = await modelConfig(admin, org, provider);
  const foreignConfig = await modelConfig(otherAdmin, other, provider);
  return {
    org,
    other,
    admin,
    member,
    otherAdmin,
    provider,
    config,
    foreignConfig,
    path: `/organizations/${org}/chats/model-overrides/compaction`,
  };
}

describe("/organizations/{org}/chats/model-overrides/compaction", () => {
  it("is 404 while unset, then set, read, replaced and removed by an admin", async () => {
    const s = await setup();
    expect((await api(s.path, { token: s.admin.token })).status).toBe(404);
    const set = await expectJson<Record<string, string>>(
      await api(s.path, { method: "PUT", token: s.admin.token, body: { model_config_id: s.config } }),
      200,
    );
    expect(set).toMatchObject({ organization_id: s.org, context: "compaction", model_config_id: s.config });
    expect(await expectJson(await api(s.path, { token: s.admin.token }), 200)).toEqual(set);

    const second = await modelConfig(s.admin, s.org, s.provider);
    await expectJson(await api(s.path, { method: "PUT", token: s.admin.token, body: { model_config_id: second } }), 200);
    expect(await expectJson(await api(s.path, { token: s.admin.token }), 200)).toMatchObject({ model_config_id: second });

    expect((await api(s.path, { method: "DELETE", token: s.admin.token })).status).toBe(204);
    expect((await api(s.path, { token: s.admin.token })).status).toBe(404);
    expect((await api(s.path, { method: "DELETE", token: s.admin.token })).status).toBe(404);
  });

  it("belongs to organization admins: members get 403, outsiders and unknown organizations 404", async () => {
    const s = await setup();
    const put = (u: TestUser, path = s.path) => api(path, { method: "PUT", token: u.token, body: { model_config_id: s.config } });
    expect((await put(s.member)).status).toBe(403);
    expect((await api(s.path, { token: s.member.token })).status).toBe(403);
    expect((await api(s.path, { method: "DELETE", token: s.member.token })).status).toBe(403);
    expect((await put(s.otherAdmin)).status).toBe(404);
    expect((await put(s.admin, `/organizations/${crypto.randomUUID()}/chats/model-overrides/compaction`)).status).toBe(404);
    expect((await api(s.path, { method: "PUT", body: { model_config_id: s.config } })).status).toBe(401);
    expect((await api(s.path, { token: s.admin.token })).status).toBe(404);
  });

  it("refuses another organization's config, a missing, deleted or disabled one, and writes nothing", async () => {
    const s = await setup();
    const disabled = await modelConfig(s.admin, s.org, s.provider, { enabled: false });
    const deleted = await modelConfig(s.admin, s.org, s.provider);
    await expectJson(await api(`/organizations/${s.org}/chats/model-configs/${deleted}`, { method: "DELETE", token: s.admin.token }), 204);
    for (const id of [s.foreignConfig, crypto.randomUUID(), disabled, deleted]) {
      const error = await expectJson<ErrorJson>(
        await api(s.path, { method: "PUT", token: s.admin.token, body: { model_config_id: id } }),
        400,
      );
      expect(error.code).toBe("validation_failed");
      expect(error.validations?.[0]?.field).toBe("model_config_id");
    }
    expect((await api(s.path, { token: s.admin.token })).status).toBe(404);
  });

  it("validates the body and the context", async () => {
    const s = await setup();
    for (const body of [{}, { model_config_id: "not-a-uuid" }, { model_config_id: s.config, extra: 1 }]) {
      expect((await expectJson<ErrorJson>(await api(s.path, { method: "PUT", token: s.admin.token, body }), 400)).code).toBe(
        "validation_failed",
      );
    }
    const unknown = `/organizations/${s.org}/chats/model-overrides/nonsense`;
    expect((await api(unknown, { method: "PUT", token: s.admin.token, body: { model_config_id: s.config } })).status).toBe(400);
  });

  it("cannot store a cross-organization reference even bypassing the API (composite foreign key)", async () => {
    const s = await setup();
    const insert = withDb((db) =>
      db.insert(chatOrganizationModelOverrides).values({ organizationId: s.org, context: "compaction", modelConfigId: s.foreignConfig }),
    );
    await expect(insert).rejects.toMatchObject({ cause: { code: "23503" } });
    const badContext = withDb((db) =>
      db
        .insert(chatOrganizationModelOverrides)
        // biome-ignore lint/suspicious/noExplicitAny: an invalid context on purpose.
        .values({ organizationId: s.org, context: "other" as any, modelConfigId: s.config }),
    );
    await expect(badContext).rejects.toMatchObject({ cause: { code: "23514" } });
  });

  it("appears in the OpenAPI document with the preferences", async () => {
    const doc = await expectJson<{ paths: Record<string, Record<string, unknown>> }>(await api("/openapi.json"), 200);
    expect(Object.keys(doc.paths["/api/v2/organizations/{organization}/chats/model-overrides/{context}"] ?? {}).sort()).toEqual([
      "delete",
      "get",
      "put",
    ]);
    expect(Object.keys(doc.paths["/api/v2/users/me/chat-preferences"] ?? {}).sort()).toEqual(["get", "put"]);
  });
});
