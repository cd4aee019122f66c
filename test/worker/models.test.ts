import { describe, expect, it } from "vitest";
import { api, createOrg, createTestUser, expectJson, unique } from "./support/accounts";

interface ModelsJson {
  configs: { id: string; provider_id: string; is_default: boolean }[];
  providers: Record<string, unknown>[];
  unsupported_provider_types: string[];
}

describe("GET /organizations/{org}/chats/models", () => {
  it("shows members the organization's configs and redacted providers with availability", async () => {
    const org = await createOrg();
    const owner = await createTestUser({ siteOwner: true });
    const member = await createTestUser({ organizationId: org });
    const secret = "sk-secret-for-models-0123456789";
    const mk = async (body: Record<string, unknown>) =>
      (await expectJson<{ id: string }>(await api("/chats/providers", { token: owner.token, body: { name: unique("p-"), ...body } }), 201))
        .id;
    const withKey = await mk({ type: "openai", api_key: secret, base_url: "https://secret-endpoint.example/v1" });
    const noKey = await mk({ type: "anthropic" });
    const disabled = await mk({ type: "openai", api_key: secret, enabled: false });
    const cfg = await expectJson<{ id: string }>(
      await api(`/organizations/${org}/chats/model-configs`, { token: owner.token, body: { provider_id: withKey, model: "gpt" } }),
      201,
    );

    const res = await api(`/organizations/${org}/chats/models`, { token: member.token });
    const text = await res.clone().text();
    expect(text).not.toContain(secret);
    expect(text).not.toContain("secret-endpoint");
    const body = await expectJson<ModelsJson>(res, 200);
    expect(body.configs.map((c) => c.id)).toEqual([cfg.id]);
    expect(body.configs[0]?.is_default).toBe(true);
    const byId = new Map(body.providers.map((p) => [p.id, p]));
    expect(byId.get(withKey)).toEqual({ id: withKey, type: "openai", name: expect.any(String), enabled: true, available: true });
    expect(byId.get(noKey)).toMatchObject({ enabled: true, available: false });
    expect(byId.get(disabled)).toMatchObject({ enabled: false, available: false });
    expect(body.unsupported_provider_types).toEqual([]);
  });

  it("does not show another organization's configs", async () => {
    const org = await createOrg();
    const other = await createOrg();
    const owner = await createTestUser({ siteOwner: true });
    const member = await createTestUser({ organizationId: org });
    const p = (
      await expectJson<{ id: string }>(
        await api("/chats/providers", { token: owner.token, body: { type: "anthropic", name: unique("p-") } }),
        201,
      )
    ).id;
    await expectJson(
      await api(`/organizations/${other}/chats/model-configs`, { token: owner.token, body: { provider_id: p, model: "x" } }),
      201,
    );
    const body = await expectJson<ModelsJson>(await api(`/organizations/${org}/chats/models`, { token: member.token }), 200);
    expect(body.configs).toEqual([]);
  });

  it("answers 404 to a non-member and 401 without a token", async () => {
    const org = await createOrg();
    const outsider = await createTestUser();
    expect((await api(`/organizations/${org}/chats/models`, { token: outsider.token })).status).toBe(404);
    expect((await api(`/organizations/${org}/chats/models`)).status).toBe(401);
  });
});
