import { describe, expect, it } from "vitest";
import { DEFAULT_COMPRESSION_THRESHOLD_PERCENT } from "../../src/llm/compaction/trigger";
import { api, createOrg, createTestUser, expectJson, unique } from "./support/accounts";

/** Coder's OrganizationChatModelsResponse, as much of it as these tests read. */
interface ModelsJson {
  models: {
    id: string;
    provider_id: string;
    ai_provider_id: string;
    is_default: boolean;
    options: Record<string, unknown>;
    model_config: Record<string, unknown>;
    reasoning_efforts: string[];
  }[];
  providers: Record<string, unknown>[];
  unsupported_providers: { provider: string; display_name: string }[];
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
    const options = { reasoning_effort: { default: "low", max: "high" } };
    const cfg = await expectJson<{ id: string }>(
      await api(`/organizations/${org}/chats/model-configs`, { token: owner.token, body: { provider_id: withKey, model: "gpt", options } }),
      201,
    );

    const res = await api(`/organizations/${org}/chats/models`, { token: member.token });
    const text = await res.clone().text();
    expect(text).not.toContain(secret);
    expect(text).not.toContain("secret-endpoint");
    const body = await expectJson<ModelsJson>(res, 200);
    expect(body.models.map((c) => c.id)).toEqual([cfg.id]);
    // Coder's names beside ours: ai_provider_id, model_config, and the efforts up to the maximum.
    expect(body.models[0]).toMatchObject({
      is_default: true,
      provider_id: withKey,
      ai_provider_id: withKey,
      options,
      model_config: options,
      reasoning_efforts: ["none", "minimal", "low", "medium", "high"],
      // Numbers, as Coder's ChatModel has them, for a config that sets neither: an unknown window
      // is 0, and the threshold the chat trigger uses by default.
      context_limit: 0,
      compression_threshold: DEFAULT_COMPRESSION_THRESHOLD_PERCENT,
    });
    const byId = new Map(body.providers.map((p) => [p.id, p]));
    expect(byId.get(withKey)).toEqual({
      id: withKey,
      type: "openai",
      name: expect.any(String),
      display_name: expect.any(String),
      icon: "",
      enabled: true,
      has_api_key: true,
      has_user_api_key: false,
      has_effective_api_key: true,
      allow_user_api_key: false,
      available: true,
    });
    expect(byId.get(noKey)).toMatchObject({ enabled: true, available: false, has_api_key: false, unavailable_reason: "missing_api_key" });
    expect(byId.get(disabled)).toMatchObject({ enabled: false, available: false, has_api_key: true });
    expect(byId.get(disabled)).not.toHaveProperty("unavailable_reason");
    expect(body.unsupported_providers).toEqual([]);
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
    expect(body.models).toEqual([]);
  });

  it("answers 404 to a non-member and 401 without a token", async () => {
    const org = await createOrg();
    const outsider = await createTestUser();
    expect((await api(`/organizations/${org}/chats/models`, { token: outsider.token })).status).toBe(404);
    expect((await api(`/organizations/${org}/chats/models`)).status).toBe(401);
  });
});
