/**
 * The chat's last_reasoning_effort through the HTTP API (the API alone: chats stay where each
 * request leaves them): an effort sent alone is kept, a model sent alone does not reset it, an edit
 * and a promoted queued message set it.
 */
import { describe, expect, it } from "vitest";
import { createModelConfig } from "../../src/model-configs/configs";
import { createProvider } from "../../src/model-configs/providers";
import { api, createTestUser, expectJson, type TestUser, withDb } from "./support/accounts";
import { testKeys } from "../support/test-keys";

const text = (t: string) => [{ type: "text", text: t }];

interface Chat {
  id: string;
  status: string;
  last_model_config_id: string | null;
  last_reasoning_effort: string | null;
}

async function modelOf(user: TestUser): Promise<string> {
  return withDb(async (db) => {
    const provider = await createProvider(
      db,
      {
        type: "openai-compatible",
        name: `p-${crypto.randomUUID().slice(0, 8)}`,
        baseUrl: "http://127.0.0.1:9/v1",
        apiKey: "x",
        enabled: true,
      },
      testKeys,
    );
    return (await createModelConfig(db, user.organizationId, { providerId: provider.id, model: "m", isDefault: true }, new Date())).id;
  });
}

const chatOf = async (u: TestUser, id: string) => expectJson<Chat>(await api(`/chats/${id}`, { token: u.token }), 200);

describe("last_reasoning_effort over HTTP", () => {
  it("keeps an effort sent alone, and keeps it when a later edit sets only a model", async () => {
    const u = await createTestUser();
    const model = await modelOf(u);
    const chat = await expectJson<Chat>(await api("/chats", { token: u.token, body: { content: [] } }), 201);
    const sent = await expectJson<{ message: { id: string } }>(
      await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: text("think hard"), reasoning_effort: "high" } }),
      200,
    );
    expect(await chatOf(u, chat.id)).toMatchObject({ last_reasoning_effort: "high", last_model_config_id: null });

    await expectJson(
      await api(`/chats/${chat.id}/messages/${sent.message.id}`, {
        method: "PATCH",
        token: u.token,
        body: { content: text("think harder"), model_config_id: model },
      }),
      200,
    );
    expect(await chatOf(u, chat.id)).toMatchObject({ last_reasoning_effort: "high", last_model_config_id: model });
  });

  it("takes a queued message's effort when it is promoted", async () => {
    const u = await createTestUser();
    const chat = await expectJson<Chat>(await api("/chats", { token: u.token, body: { content: text("first") } }), 201);
    const queued = await expectJson<{ queued: boolean; queued_message: { id: string; reasoning_effort: string } }>(
      await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: text("later"), reasoning_effort: "low" } }),
      200,
    );
    expect(queued.queued).toBe(true);
    expect(queued.queued_message.reasoning_effort).toBe("low");
    expect((await chatOf(u, chat.id)).last_reasoning_effort).toBeNull();
    // Interrupting the unowned running chat finishes at once and promotes the queue head.
    await expectJson(await api(`/chats/${chat.id}/interrupt`, { method: "POST", token: u.token }), 200);
    expect((await chatOf(u, chat.id)).last_reasoning_effort).toBe("low");
  });
});
