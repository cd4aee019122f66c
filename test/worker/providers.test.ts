import { describe, expect, it } from "vitest";
import { getProvider } from "../../src/model-configs/providers";
import { openedProvider } from "../../src/model-configs/provider-secrets";
import { testKeys } from "../support/test-keys";
import { api, createTestUser, expectJson, unique, withDb } from "./support/accounts";

interface ProviderJson {
  id: string;
  type: string;
  name: string;
  base_url: string | null;
  enabled: boolean;
  has_api_key: boolean;
}
interface ErrorJson {
  code: string;
  validations?: { field: string; detail: string }[];
}

const SECRET = "sk-test-never-returned-0123456789";

async function owner() {
  return createTestUser({ siteOwner: true });
}

describe("/chats/providers", () => {
  it("creates a provider and never returns its key, only has_api_key", async () => {
    const o = await owner();
    const name = unique("p-");
    const res = await api("/chats/providers", { token: o.token, body: { type: "openai", name, api_key: SECRET } });
    const text = await res.clone().text();
    expect(text).not.toContain(SECRET);
    const created = await expectJson<ProviderJson>(res, 201);
    expect(created).toEqual({ id: created.id, type: "openai", name, base_url: null, enabled: true, has_api_key: true });
    // Stored sealed (docs/hardening.md): the column holds no plaintext, and opens to the key.
    const stored = await withDb((db) => getProvider(db, created.id));
    expect(stored?.apiKeySealedWith).toBe(testKeys.currentId);
    expect(stored?.apiKey).not.toContain(SECRET);
    expect((await openedProvider(testKeys, stored!)).apiKey).toBe(SECRET);

    const list = await api("/chats/providers", { token: o.token });
    const listText = await list.clone().text();
    expect(listText).not.toContain(SECRET);
    expect((await expectJson<ProviderJson[]>(list, 200)).some((p) => p.id === created.id)).toBe(true);
    const one = await api(`/chats/providers/${created.id}`, { token: o.token });
    expect(await one.clone().text()).not.toContain(SECRET);
    expect(await expectJson<ProviderJson>(one, 200)).toEqual(created);
  });

  it("patches fields, clears the key with null, and never echoes a new key", async () => {
    const o = await owner();
    const created = await expectJson<ProviderJson>(
      await api("/chats/providers", {
        token: o.token,
        body: { type: "openai-compatible", name: unique("p-"), base_url: "http://127.0.0.1:9/v1" },
      }),
      201,
    );
    expect(created.has_api_key).toBe(false);
    const withKey = await api(`/chats/providers/${created.id}`, {
      method: "PATCH",
      token: o.token,
      body: { api_key: SECRET, enabled: false },
    });
    expect(await withKey.clone().text()).not.toContain(SECRET);
    expect(await expectJson<ProviderJson>(withKey, 200)).toMatchObject({
      has_api_key: true,
      enabled: false,
      base_url: "http://127.0.0.1:9/v1",
    });
    const cleared = await api(`/chats/providers/${created.id}`, { method: "PATCH", token: o.token, body: { api_key: null } });
    expect(await expectJson<ProviderJson>(cleared, 200)).toMatchObject({ has_api_key: false, enabled: false });
  });

  it("requires a base URL for openai-compatible providers, on create and on patch", async () => {
    const o = await owner();
    const res = await api("/chats/providers", { token: o.token, body: { type: "openai-compatible", name: unique("p-") } });
    expect((await expectJson<ErrorJson>(res, 400)).validations?.[0]?.field).toBe("base_url");
    const created = await expectJson<ProviderJson>(
      await api("/chats/providers", {
        token: o.token,
        body: { type: "openai-compatible", name: unique("p-"), base_url: "https://x.example/v1" },
      }),
      201,
    );
    const patched = await api(`/chats/providers/${created.id}`, { method: "PATCH", token: o.token, body: { base_url: null } });
    expect((await expectJson<ErrorJson>(patched, 400)).validations?.[0]?.field).toBe("base_url");
  });

  it("answers 400 with validations for a malformed body, writing nothing", async () => {
    const o = await owner();
    const name = unique("p-");
    const res = await api("/chats/providers", { token: o.token, body: { type: "gemini", name, base_url: "ftp://x", enabled: "yes" } });
    const body = await expectJson<ErrorJson>(res, 400);
    expect(body.validations?.map((v) => v.field).sort()).toEqual(["base_url", "enabled", "type"]);
    const list = await expectJson<ProviderJson[]>(await api("/chats/providers", { token: o.token }), 200);
    expect(list.some((p) => p.name === name)).toBe(false);
  });

  it("answers 409 for a taken name", async () => {
    const o = await owner();
    const name = unique("p-");
    await expectJson(await api("/chats/providers", { token: o.token, body: { type: "anthropic", name } }), 201);
    expect(
      (await expectJson<ErrorJson>(await api("/chats/providers", { token: o.token, body: { type: "anthropic", name } }), 409)).code,
    ).toBe("already_exists");
  });

  it("deletes an unused provider (204, then 404)", async () => {
    const o = await owner();
    const created = await expectJson<ProviderJson>(
      await api("/chats/providers", { token: o.token, body: { type: "anthropic", name: unique("p-") } }),
      201,
    );
    expect((await api(`/chats/providers/${created.id}`, { method: "DELETE", token: o.token })).status).toBe(204);
    expect((await api(`/chats/providers/${created.id}`, { token: o.token })).status).toBe(404);
    expect((await api(`/chats/providers/${created.id}`, { method: "DELETE", token: o.token })).status).toBe(404);
  });

  it("refuses to delete a provider a live model config uses (409 provider_in_use)", async () => {
    const o = await owner();
    const p = await expectJson<ProviderJson>(
      await api("/chats/providers", { token: o.token, body: { type: "anthropic", name: unique("p-"), api_key: "k" } }),
      201,
    );
    await expectJson(
      await api(`/organizations/${o.organizationId}/chats/model-configs`, { token: o.token, body: { provider_id: p.id, model: "claude" } }),
      201,
    );
    const res = await api(`/chats/providers/${p.id}`, { method: "DELETE", token: o.token });
    expect((await expectJson<ErrorJson>(res, 409)).code).toBe("provider_in_use");
  });

  it("refuses organization admins and members with 403, writing nothing", async () => {
    const o = await owner();
    const p = await expectJson<ProviderJson>(
      await api("/chats/providers", { token: o.token, body: { type: "anthropic", name: unique("p-") } }),
      201,
    );
    const admin = await createTestUser({ role: "admin" });
    const member = await createTestUser();
    for (const u of [admin, member]) {
      expect((await api("/chats/providers", { token: u.token })).status).toBe(403);
      expect((await api(`/chats/providers/${p.id}`, { token: u.token })).status).toBe(403);
      expect((await api("/chats/providers", { token: u.token, body: { type: "openai", name: unique("p-") } })).status).toBe(403);
      expect((await api(`/chats/providers/${p.id}`, { method: "PATCH", token: u.token, body: { enabled: false } })).status).toBe(403);
      expect((await api(`/chats/providers/${p.id}`, { method: "DELETE", token: u.token })).status).toBe(403);
    }
    expect(await expectJson<ProviderJson>(await api(`/chats/providers/${p.id}`, { token: o.token }), 200)).toEqual(p);
  });

  it("answers 401 without a token", async () => {
    expect((await api("/chats/providers")).status).toBe(401);
    expect((await api("/chats/providers", { body: { type: "openai", name: "x" } })).status).toBe(401);
  });

  it("answers 400 for an ID that is not a UUID", async () => {
    const o = await owner();
    expect((await expectJson<ErrorJson>(await api("/chats/providers/nope", { token: o.token }), 400)).code).toBe("validation_failed");
  });
});
