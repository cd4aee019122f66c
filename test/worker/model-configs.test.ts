import { describe, expect, it } from "vitest";
import { api, createOrg, createTestUser, expectJson, type TestUser, unique } from "./support/accounts";

interface ConfigJson {
  id: string;
  organization_id: string;
  provider_id: string;
  model: string;
  display_name: string;
  enabled: boolean;
  is_default: boolean;
  context_limit: number | null;
  compression_threshold: number | null;
  options: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}
interface ErrorJson {
  code: string;
  validations?: { field: string; detail: string }[];
}

async function provider(owner: TestUser, enabled = true): Promise<string> {
  const res = await api("/chats/providers", {
    token: owner.token,
    body: { type: "openai-compatible", name: unique("p-"), base_url: "http://127.0.0.1:9/v1", enabled },
  });
  return (await expectJson<{ id: string }>(res, 201)).id;
}

/** A fresh organization with a site owner (for providers), an admin and a member. */
async function setup() {
  const org = await createOrg();
  const owner = await createTestUser({ siteOwner: true });
  const admin = await createTestUser({ organizationId: org, role: "admin" });
  const member = await createTestUser({ organizationId: org, role: "member" });
  const providerId = await provider(owner);
  return { org, owner, admin, member, providerId, path: `/organizations/${org}/chats/model-configs` };
}

async function list(path: string, token: string): Promise<ConfigJson[]> {
  return expectJson<ConfigJson[]>(await api(path, { token }), 200);
}

describe("/organizations/{org}/chats/model-configs", () => {
  it("creates a config with every field, the first one as default", async () => {
    const s = await setup();
    const body = {
      provider_id: s.providerId,
      model: "gpt-x",
      display_name: "GPT X",
      context_limit: 128000,
      compression_threshold: 70,
      options: {
        reasoning_effort: { default: "low", max: "high" },
        openai_config: { use_responses_api: true },
        provider_options: { a: 1 },
      },
    };
    const created = await expectJson<ConfigJson>(await api(s.path, { token: s.admin.token, body }), 201);
    expect(created).toMatchObject({ ...body, organization_id: s.org, enabled: true, is_default: true });
    expect(await expectJson<ConfigJson>(await api(`${s.path}/${created.id}`, { token: s.member.token }), 200)).toEqual(created);
    expect((await list(s.path, s.member.token)).map((c) => c.id)).toEqual([created.id]);
  });

  it("defaults display_name to the model", async () => {
    const s = await setup();
    const created = await expectJson<ConfigJson>(
      await api(s.path, { token: s.admin.token, body: { provider_id: s.providerId, model: "m" } }),
      201,
    );
    expect(created.display_name).toBe("m");
  });

  it("keeps exactly one default under ten concurrent creates with is_default", async () => {
    const s = await setup();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        api(s.path, { token: s.admin.token, body: { provider_id: s.providerId, model: `m${i}`, is_default: true } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    const configs = await list(s.path, s.member.token);
    expect(configs).toHaveLength(10);
    expect(configs.filter((c) => c.is_default)).toHaveLength(1);
  });

  it("on deleting the default elects an enabled config whose provider is enabled", async () => {
    const s = await setup();
    const offProvider = await provider(s.owner, false);
    const create = async (body: Record<string, unknown>) =>
      expectJson<ConfigJson>(await api(s.path, { token: s.admin.token, body: { provider_id: s.providerId, ...body } }), 201);
    const def = await create({ model: "default" });
    await create({ model: "disabled", enabled: false });
    await create({ model: "provider-off", provider_id: offProvider });
    const good = await create({ model: "good" });
    expect((await api(`${s.path}/${def.id}`, { method: "DELETE", token: s.admin.token })).status).toBe(204);
    const configs = await list(s.path, s.member.token);
    expect(configs.filter((c) => c.is_default).map((c) => c.id)).toEqual([good.id]);
    expect(configs.some((c) => c.id === def.id)).toBe(false);
    expect((await api(`${s.path}/${def.id}`, { token: s.member.token })).status).toBe(404);
  });

  it("keeps the only config default when it is demoted", async () => {
    const s = await setup();
    const only = await expectJson<ConfigJson>(
      await api(s.path, { token: s.admin.token, body: { provider_id: s.providerId, model: "only" } }),
      201,
    );
    const res = await api(`${s.path}/${only.id}`, { method: "PATCH", token: s.admin.token, body: { is_default: false } });
    expect((await expectJson<ConfigJson>(res, 200)).is_default).toBe(true);
  });

  it("patches fields and moves the default", async () => {
    const s = await setup();
    const a = await expectJson<ConfigJson>(
      await api(s.path, { token: s.admin.token, body: { provider_id: s.providerId, model: "a" } }),
      201,
    );
    const b = await expectJson<ConfigJson>(
      await api(s.path, { token: s.admin.token, body: { provider_id: s.providerId, model: "b", context_limit: 10 } }),
      201,
    );
    const patched = await expectJson<ConfigJson>(
      await api(`${s.path}/${b.id}`, {
        method: "PATCH",
        token: s.admin.token,
        body: { is_default: true, display_name: "Bee", context_limit: null },
      }),
      200,
    );
    expect(patched).toMatchObject({ is_default: true, display_name: "Bee", context_limit: null, model: "b" });
    expect((await expectJson<ConfigJson>(await api(`${s.path}/${a.id}`, { token: s.member.token }), 200)).is_default).toBe(false);
  });

  it("lets the site owner write in any organization", async () => {
    const s = await setup();
    expect((await api(s.path, { token: s.owner.token, body: { provider_id: s.providerId, model: "o" } })).status).toBe(201);
  });

  it("refuses members with 403 on every write, writing nothing", async () => {
    const s = await setup();
    const cfg = await expectJson<ConfigJson>(
      await api(s.path, { token: s.admin.token, body: { provider_id: s.providerId, model: "a" } }),
      201,
    );
    expect((await api(s.path, { token: s.member.token, body: { provider_id: s.providerId, model: "b" } })).status).toBe(403);
    expect((await api(`${s.path}/${cfg.id}`, { method: "PATCH", token: s.member.token, body: { model: "z" } })).status).toBe(403);
    expect((await api(`${s.path}/${cfg.id}`, { method: "DELETE", token: s.member.token })).status).toBe(403);
    expect(await list(s.path, s.member.token)).toEqual([cfg]);
  });

  it("answers 404 to callers outside the organization, on reads and writes", async () => {
    const s = await setup();
    const cfg = await expectJson<ConfigJson>(
      await api(s.path, { token: s.admin.token, body: { provider_id: s.providerId, model: "a" } }),
      201,
    );
    const outsider = await createTestUser({ role: "admin" });
    for (const res of [
      await api(s.path, { token: outsider.token }),
      await api(`${s.path}/${cfg.id}`, { token: outsider.token }),
      await api(s.path, { token: outsider.token, body: { provider_id: s.providerId, model: "b" } }),
      await api(`${s.path}/${cfg.id}`, { method: "PATCH", token: outsider.token, body: { model: "z" } }),
      await api(`${s.path}/${cfg.id}`, { method: "DELETE", token: outsider.token }),
      await api(`/organizations/${crypto.randomUUID()}/chats/model-configs`, { token: outsider.token }),
    ]) {
      expect((await expectJson<ErrorJson>(res, 404)).code).toBe("not_found");
    }
    expect(await list(s.path, s.member.token)).toEqual([cfg]);
  });

  it("answers 404 for a config of another organization addressed through this one", async () => {
    const s = await setup();
    const t = await setup();
    const theirs = await expectJson<ConfigJson>(
      await api(t.path, { token: t.admin.token, body: { provider_id: t.providerId, model: "t" } }),
      201,
    );
    expect((await api(`${s.path}/${theirs.id}`, { token: s.admin.token })).status).toBe(404);
    expect((await api(`${s.path}/${theirs.id}`, { method: "DELETE", token: s.admin.token })).status).toBe(404);
  });

  it("answers 400 with validations for a malformed body, and for an unknown provider", async () => {
    const s = await setup();
    const bad = await api(s.path, {
      token: s.admin.token,
      body: {
        provider_id: "x",
        model: "",
        compression_threshold: 101,
        options: { reasoning_effort: { default: "high", max: "low" }, extra: 1 },
      },
    });
    const body = await expectJson<ErrorJson>(bad, 400);
    expect(body.code).toBe("validation_failed");
    expect(body.validations?.map((v) => v.field)).toEqual(
      expect.arrayContaining(["provider_id", "model", "compression_threshold", "options.reasoning_effort.default", "options"]),
    );
    const unknown = await api(s.path, { token: s.admin.token, body: { provider_id: crypto.randomUUID(), model: "m" } });
    expect((await expectJson<ErrorJson>(unknown, 400)).validations?.[0]?.field).toBe("provider_id");
    expect(await list(s.path, s.member.token)).toEqual([]);
  });

  it("answers 401 without a token", async () => {
    const s = await setup();
    expect((await api(s.path)).status).toBe(401);
    expect((await api(s.path, { body: { provider_id: s.providerId, model: "m" } })).status).toBe(401);
  });
});
