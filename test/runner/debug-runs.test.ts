/**
 * Debug runs (docs/debug-runs.md) through the runner, against the fake model over each wire: a chat
 * whose owner turned them on records each model request as it went on the wire, with the provider's
 * key redacted wherever it appears (its auth header, a prompt that quotes it, the echo that comes
 * back); the owner lists and reads them under /api/experimental; another tenant gets 404 for the
 * chat, the list and the run; a chat without the flag records nothing; turning it off deletes them.
 */
import { afterAll, describe, expect, inject, it } from "vitest";
import { SELF } from "cloudflare:test";
import { createModelConfig } from "../../src/model-configs/configs";
import { createProvider, type ProviderType } from "../../src/model-configs/providers";
import { testKeys } from "../support/test-keys";
import { api, createTestUser, expectJson, type TestUser, withDb } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf } from "./support/model-user";
import { compactionUser, storedRows } from "./support/compaction-models";
import { summaries } from "./support/compaction-chats";

const EXPERIMENTAL = "http://chatd.test/api/experimental";
const REDACTED = "[REDACTED]";

afterAll(() => releaseChatsOf(modelUsers), 60_000);

function xapi(path: string, user: TestUser, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  const headers: Record<string, string> = { Authorization: `Bearer ${user.token}` };
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  return SELF.fetch(`${EXPERIMENTAL}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

/** A user whose organization's default model is `model` on a `type` provider at the fake model, keyed with `apiKey`. */
async function userWithKey(type: ProviderType, model: string, apiKey: string): Promise<TestUser> {
  const user = await createTestUser();
  modelUsers.push(user);
  await withDb(async (db) => {
    const provider = await createProvider(
      db,
      { type, name: `debug-${crypto.randomUUID().slice(0, 8)}`, baseUrl: `${inject("fakeModelUrl")}/v1`, apiKey, enabled: true },
      testKeys,
    );
    await createModelConfig(db, user.organizationId, { providerId: provider.id, model, isDefault: true }, new Date());
  });
  return user;
}

interface RunSummary {
  id: string;
  chat_id: string;
  kind: string;
  trace_id: string | null;
  provider: string;
  model: string;
  model_config_id: string | null;
  transport: string;
  status: number | null;
  finish_reason: string | null;
  bytes: number;
}

interface Run extends RunSummary {
  request: { method: string; url: string; headers: Record<string, string>; body: unknown; body_truncated: boolean };
  response: { status: number; headers: Record<string, string>; body: string; body_truncated: boolean } | null;
  outcome: { finish_reason: string | null; usage: Record<string, number | null> | null; parts: unknown } | null;
}

async function createChat(user: TestUser): Promise<string> {
  const { id } = await expectJson<{ id: string }>(await api("/chats", { token: user.token, body: { content: [] } }), 201);
  return id;
}

async function send(user: TestUser, chatId: string, text: string): Promise<void> {
  await expectJson(await api(`/chats/${chatId}/messages`, { token: user.token, body: { content: [{ type: "text", text }] } }), 200);
  await expect
    .poll(async () => (await expectJson<{ status: string }>(await api(`/chats/${chatId}`, { token: user.token }), 200)).status, {
      timeout: 20_000,
      interval: 100,
    })
    .toBe("waiting");
}

async function runsOf(user: TestUser, chatId: string, query = ""): Promise<RunSummary[]> {
  return expectJson<RunSummary[]>(await xapi(`/chats/${chatId}/debug/runs${query}`, user), 200);
}

describe("debug runs", () => {
  const wires = [
    { name: "OpenAI Chat Completions", type: "openai" as const, model: "gpt-4o", transport: "openai-chat", auth: "authorization" },
    { name: "OpenAI Responses", type: "openai" as const, model: "gpt-5", transport: "openai-responses", auth: "authorization" },
    {
      name: "Anthropic Messages",
      type: "anthropic" as const,
      model: "claude-sonnet-4-6",
      transport: "anthropic-messages",
      auth: "x-api-key",
    },
  ];

  it.each(wires)(
    "record a turn's request and response over $name, the key redacted everywhere",
    async ({ type, model, transport, auth }) => {
      const key = `sk-debug-${crypto.randomUUID()}`;
      const user = await userWithKey(type, model, key);
      const chatId = await createChat(user);
      const settings = await expectJson<{ enabled: boolean; recording: boolean; mode: string }>(
        await xapi(`/chats/${chatId}/debug`, user, { method: "PUT", body: { enabled: true } }),
        200,
      );
      expect(settings).toMatchObject({ enabled: true, recording: true, mode: "opt_in" });

      const tag = crypto.randomUUID().slice(0, 8);
      await send(user, chatId, `debug ${tag} my key is ${key}`);
      // Written after the step, in the background.
      await expect.poll(async () => (await runsOf(user, chatId)).length, { timeout: 10_000, interval: 100 }).toBeGreaterThan(0);
      const runs = (await runsOf(user, chatId)).filter((r) => r.kind === "step");
      expect(runs.length).toBe(1);
      const [summary] = runs;
      expect(summary).toMatchObject({ chat_id: chatId, provider: type, model, transport, status: 200, finish_reason: "stop" });
      expect(summary?.trace_id).toMatch(/^[0-9a-f]{32}$/);

      const run = await expectJson<Run>(await xapi(`/chats/${chatId}/debug/runs/${summary?.id}`, user), 200);
      const stored = JSON.stringify(run);
      expect(stored).not.toContain(key);
      expect(run.request.method).toBe("POST");
      expect(run.request.headers[auth]).toBe(REDACTED);
      // The body is the wire's own JSON: the model and the prompt as sent, the quoted key replaced.
      const body = JSON.stringify(run.request.body);
      expect(body).toContain(`"${model}"`);
      expect(body).toContain(`debug ${tag} my key is ${REDACTED}`);
      expect(run.request.body_truncated).toBe(false);
      // The fake model echoes the prompt: the stream came back with the key, stored without it.
      expect(run.response?.status).toBe(200);
      expect(run.response?.body).toContain("data:");
      expect(run.response?.body).toContain(REDACTED);
      expect(run.outcome?.finish_reason).toBe("stop");
      expect(run.outcome?.usage?.output_tokens).toBeGreaterThan(0);
      expect(JSON.stringify(run.outcome?.parts)).toContain(tag);

      // The turn view's filter: the turn's runs by its trace.
      expect((await runsOf(user, chatId, `?trace_id=${summary?.trace_id}`)).map((r) => r.id)).toContain(summary?.id);
      expect(await runsOf(user, chatId, "?trace_id=0000")).toEqual([]);
    },
  );

  it("are the owner's alone: another tenant gets 404 for the settings, the list and the run", async () => {
    const owner = await userWithKey("openai", "gpt-4o", `sk-owner-${crypto.randomUUID()}`);
    const stranger = await createTestUser();
    const chatId = await createChat(owner);
    await expectJson(await xapi(`/chats/${chatId}/debug`, owner, { method: "PUT", body: { enabled: true } }), 200);
    await send(owner, chatId, `tenancy ${crypto.randomUUID().slice(0, 8)}`);
    await expect.poll(async () => (await runsOf(owner, chatId)).length, { timeout: 10_000, interval: 100 }).toBeGreaterThan(0);
    const [run] = await runsOf(owner, chatId);

    for (const [path, init] of [
      [`/chats/${chatId}/debug`, {}],
      [`/chats/${chatId}/debug`, { method: "PUT", body: { enabled: false } }],
      [`/chats/${chatId}/debug/runs`, {}],
      [`/chats/${chatId}/debug/runs/${run?.id}`, {}],
    ] as const) {
      const res = await xapi(path, stranger, init);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe("not_found");
    }
    // The stranger's refused PUT changed nothing.
    expect((await runsOf(owner, chatId)).length).toBeGreaterThan(0);
    // A run id of another chat answers 404 in this one, and no token answers 401.
    const other = await createChat(owner);
    expect((await xapi(`/chats/${other}/debug/runs/${run?.id}`, owner)).status).toBe(404);
    expect((await SELF.fetch(`${EXPERIMENTAL}/chats/${chatId}/debug/runs`)).status).toBe(401);
    // The experimental routes answer under /api/experimental only.
    expect((await api(`/chats/${chatId}/debug/runs`, { token: owner.token })).status).toBe(404);
  });

  it("record nothing for a chat whose owner did not turn them on, and turning them off deletes them", async () => {
    const user = await userWithKey("openai", "gpt-4o", `sk-off-${crypto.randomUUID()}`);
    const quiet = await createChat(user);
    expect(await expectJson(await xapi(`/chats/${quiet}/debug`, user), 200)).toMatchObject({ enabled: false, recording: false });
    await send(user, quiet, `quiet ${crypto.randomUUID().slice(0, 8)}`);

    const loud = await createChat(user);
    await expectJson(await xapi(`/chats/${loud}/debug`, user, { method: "PUT", body: { enabled: true } }), 200);
    await send(user, loud, `loud ${crypto.randomUUID().slice(0, 8)}`);
    await expect.poll(async () => (await runsOf(user, loud)).length, { timeout: 10_000, interval: 100 }).toBeGreaterThan(0);
    // The quiet chat's turn ended before the loud one's run was written: nothing of it is coming.
    expect(await runsOf(user, quiet)).toEqual([]);

    await expectJson(await xapi(`/chats/${loud}/debug`, user, { method: "PUT", body: { enabled: false } }), 200);
    expect(await runsOf(user, loud)).toEqual([]);
  });

  it("redact the chat's MCP server credentials wherever they appear", async () => {
    const admin = await createTestUser({ role: "admin" });
    modelUsers.push(admin);
    await withDb(async (db) => {
      const provider = await createProvider(
        db,
        {
          type: "openai",
          name: `debug-${crypto.randomUUID().slice(0, 8)}`,
          baseUrl: `${inject("fakeModelUrl")}/v1`,
          apiKey: "x",
          enabled: true,
        },
        testKeys,
      );
      await createModelConfig(db, admin.organizationId, { providerId: provider.id, model: "gpt-4o", isDefault: true }, new Date());
    });
    const bearer = `mcp-bearer-${crypto.randomUUID()}`;
    const header = `mcp-header-${crypto.randomUUID()}`;
    const mcp = inject("mcpServer");
    const { id: serverId } = await expectJson<{ id: string }>(
      await api(`/organizations/${admin.organizationId}/mcp-servers`, {
        token: admin.token,
        body: { name: "secrets", url: mcp.url, bearer_token: bearer, headers: { "X-Test-Header": header } },
      }),
      201,
    );
    const { id: chatId } = await expectJson<{ id: string }>(
      await api("/chats", { token: admin.token, body: { content: [], mcp_server_ids: [serverId] } }),
      201,
    );
    await expectJson(await xapi(`/chats/${chatId}/debug`, admin, { method: "PUT", body: { enabled: true } }), 200);
    // The server refuses these credentials (the turn goes on without its tools); the prompt quotes them.
    await send(admin, chatId, `token ${bearer} and header ${header}`);
    await expect.poll(async () => (await runsOf(admin, chatId)).length, { timeout: 10_000, interval: 100 }).toBeGreaterThan(0);
    const [summary] = await runsOf(admin, chatId);
    const run = await expectJson<Run>(await xapi(`/chats/${chatId}/debug/runs/${summary?.id}`, admin), 200);
    const stored = JSON.stringify(run);
    expect(stored).not.toContain(bearer);
    expect(stored).not.toContain(header);
    expect(JSON.stringify(run.request.body)).toContain(`token ${REDACTED} and header ${REDACTED}`);
  });

  it("record a compaction's summary request under the model that made it: the organization's compaction model", async () => {
    const u = await compactionUser({ contextLimit: 8000, compressionThreshold: 90 }, { contextLimit: 16000 });
    await expectJson(
      await api(`/organizations/${u.organizationId}/chats/model-overrides/compaction`, {
        method: "PUT",
        token: u.token,
        body: { model_config_id: u.overrideId },
      }),
      200,
    );
    const chatId = await createChat(u);
    await expectJson(await xapi(`/chats/${chatId}/debug`, u, { method: "PUT", body: { enabled: true } }), 200);
    await send(u, chatId, `before compaction ${crypto.randomUUID().slice(0, 8)}`);
    await expectJson(await api(`/chats/${chatId}/compact`, { method: "POST", token: u.token }), 200);
    await expect.poll(async () => summaries(await storedRows(chatId)).length, { timeout: 30_000, interval: 100 }).toBe(1);

    await expect
      .poll(async () => (await runsOf(u, chatId)).filter((r) => r.kind === "compaction").length, { timeout: 10_000, interval: 100 })
      .toBe(1);
    const runs = await runsOf(u, chatId);
    const step = runs.find((r) => r.kind === "step");
    const compaction = runs.find((r) => r.kind === "compaction");
    expect(step).toMatchObject({ model: "fake-ctx8000", model_config_id: u.chatModelId });
    expect(compaction).toMatchObject({ model: "fake-ctx16000", model_config_id: u.overrideId, status: 200, finish_reason: "stop" });
    const run = await expectJson<Run>(await xapi(`/chats/${chatId}/debug/runs/${compaction?.id}`, u), 200);
    expect(JSON.stringify(run.request.body)).toContain('"fake-ctx16000"');
    expect(JSON.stringify(run.outcome?.parts)).not.toBe("null");
  });

  it("refuse a bad body with 400 naming the field", async () => {
    const user = await userWithKey("openai", "gpt-4o", `sk-bad-${crypto.randomUUID()}`);
    const chatId = await createChat(user);
    const res = await xapi(`/chats/${chatId}/debug`, user, { method: "PUT", body: { enabled: "yes" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBeTypeOf("string");
    expect((await xapi(`/chats/${chatId}/debug/runs?limit=0`, user)).status).toBe(400);
    expect((await xapi(`/chats/${chatId}/debug/runs/not-a-uuid`, user)).status).toBe(400);
  });
});
