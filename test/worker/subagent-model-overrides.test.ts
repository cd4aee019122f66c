// Subagent model overrides over HTTP: the caller's personal rows (/users/me/chats/model-overrides)
// and the organization's general/explore contexts, with validation that writes nothing.
import { describe, expect, it } from "vitest";
import { chatUserModelOverrides } from "../../src/db/schema/subagents";
import { api, createOrg, createTestUser, expectJson, type TestUser, unique, withDb } from "./support/accounts";

interface ErrorJson {
  code: string;
  validations?: { field: string; detail: string }[];
}

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
    body: { provider_id: provider, model: unique("m-"), ...extra },
  });
  return (await expectJson<{ id: string }>(res, 201)).id;
}

async function setup() {
  const org = await createOrg();
  const other = await createOrg();
  const admin = await createTestUser({ organizationId: org, role: "admin" });
  const member = await createTestUser({ organizationId: org, role: "member" });
  const outsider = await createTestUser({ organizationId: other, role: "admin" });
  const provider = await providerId();
  const config = await modelConfig(admin, org, provider);
  const foreignConfig = await modelConfig(outsider, other, provider);
  return { org, other, admin, member, outsider, provider, config, foreignConfig };
}

const personal = (context: string, org: string) => `/users/me/chats/model-overrides/${context}?organization=${org}`;

describe("/users/me/chats/model-overrides/{context}", () => {
  it("each member sets, reads, replaces and removes their own, per organization and context", async () => {
    const s = await setup();
    const path = personal("general", s.org);
    expect((await api(path, { token: s.member.token })).status).toBe(404);
    const set = await expectJson<Record<string, unknown>>(
      await api(path, {
        method: "PUT",
        token: s.member.token,
        body: { mode: "model", model_config_id: s.config, reasoning_effort: "high" },
      }),
      200,
    );
    expect(set).toMatchObject({
      organization_id: s.org,
      context: "general",
      mode: "model",
      model_config_id: s.config,
      reasoning_effort: "high",
    });
    expect(await expectJson(await api(path, { token: s.member.token }), 200)).toEqual(set);
    // Another member of the same organization has their own (none), and explore is another row.
    expect((await api(path, { token: s.admin.token })).status).toBe(404);
    expect((await api(personal("explore", s.org), { token: s.member.token })).status).toBe(404);

    const replaced = await expectJson<Record<string, unknown>>(
      await api(path, { method: "PUT", token: s.member.token, body: { mode: "chat_default" } }),
      200,
    );
    expect(replaced).toMatchObject({ mode: "chat_default", model_config_id: null, reasoning_effort: null });
    expect((await api(path, { method: "DELETE", token: s.member.token })).status).toBe(204);
    expect((await api(path, { method: "DELETE", token: s.member.token })).status).toBe(404);
  });

  it("refuses outsiders, foreign or unusable configs and malformed bodies, writing nothing", async () => {
    const s = await setup();
    const path = personal("explore", s.org);
    // Not a member of the organization named.
    expect((await api(path, { method: "PUT", token: s.outsider.token, body: { mode: "chat_default" } })).status).toBeGreaterThanOrEqual(
      403,
    );
    expect((await api(path, { method: "PUT", body: { mode: "chat_default" } })).status).toBe(401);
    const disabled = await modelConfig(s.admin, s.org, s.provider, { enabled: false });
    for (const id of [s.foreignConfig, crypto.randomUUID(), disabled]) {
      const res = await api(path, { method: "PUT", token: s.member.token, body: { mode: "model", model_config_id: id } });
      expect(res.status, id).toBe(400);
    }
    const bad = [
      { mode: "model" },
      { mode: "chat_default", model_config_id: s.config },
      { mode: "model", model_config_id: s.config, reasoning_effort: "extreme" },
      { mode: "nonsense" },
    ];
    for (const body of bad) {
      const error = await expectJson<ErrorJson>(await api(path, { method: "PUT", token: s.member.token, body }), 400);
      expect(error.code).toBe("validation_failed");
    }
    expect(
      (await api(personal("compaction", s.org), { method: "PUT", token: s.member.token, body: { mode: "chat_default" } })).status,
    ).toBe(400);
    expect(
      (await api(`/users/me/chats/model-overrides/general`, { method: "PUT", token: s.member.token, body: { mode: "chat_default" } }))
        .status,
    ).toBe(400);
    const rows = await withDb((db) => db.select().from(chatUserModelOverrides));
    expect(rows.filter((r) => r.organizationId === s.org)).toEqual([]);
  });

  it("cannot store a cross-organization model even bypassing the API (composite foreign key)", async () => {
    const s = await setup();
    const insert = withDb((db) =>
      db.insert(chatUserModelOverrides).values({
        userId: s.member.id,
        organizationId: s.org,
        context: "general",
        mode: "model",
        modelConfigId: s.foreignConfig,
      }),
    );
    await expect(insert).rejects.toMatchObject({ cause: { code: "23503" } });
  });
});

describe("/organizations/{org}/chats/model-overrides/{general|explore}", () => {
  it("an admin sets the organization's subagent models", async () => {
    const s = await setup();
    for (const context of ["general", "explore"]) {
      const path = `/organizations/${s.org}/chats/model-overrides/${context}`;
      const set = await expectJson(await api(path, { method: "PUT", token: s.admin.token, body: { model_config_id: s.config } }), 200);
      expect(set).toMatchObject({ context, model_config_id: s.config });
      expect((await api(path, { method: "PUT", token: s.member.token, body: { model_config_id: s.config } })).status).toBe(403);
    }
  });
});
