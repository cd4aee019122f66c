/**
 * Provider API keys sealed at rest (docs/hardening.md) reach the provider in the clear, on each
 * wire's own header: the fake model's request log keeps a digest of the key each request carried.
 * A key stored before sealing (plaintext, no key id) still works; one sealed with a key the
 * deployment no longer holds ends the turn at once, with an error that names no key.
 */
import { afterAll, describe, expect, inject, it } from "vitest";
import { createModelConfig } from "../../src/model-configs/configs";
import { createProvider, type ProviderType } from "../../src/model-configs/providers";
import { turnRequestsWith } from "../support/fake-model-requests";
import { testKeys } from "../support/test-keys";
import { api, createTestUser, expectJson, type TestUser, withDb } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf } from "./support/model-user";

interface Chat {
  status: string;
  last_error: { message: string } | null;
  generation_attempt: number;
}

const nonce = () => crypto.randomUUID().slice(0, 8);

afterAll(() => releaseChatsOf(modelUsers), 60_000);

async function sha16(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return [...digest]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("")
    .slice(0, 16);
}

/** A user whose organization's default model is on a `type` provider at the fake model, with `apiKey`. */
async function userWithKey(type: ProviderType, model: string, apiKey: string): Promise<{ user: TestUser; providerId: string }> {
  const user = await createTestUser();
  modelUsers.push(user);
  const providerId = await withDb(async (db) => {
    const provider = await createProvider(
      db,
      { type, name: `keyed-${nonce()}`, baseUrl: `${inject("fakeModelUrl")}/v1`, apiKey, enabled: true },
      testKeys,
    );
    await createModelConfig(db, user.organizationId, { providerId: provider.id, model, isDefault: true }, new Date());
    return provider.id;
  });
  return { user, providerId };
}

async function chatOf(user: TestUser, id: string): Promise<Chat> {
  return expectJson<Chat>(await api(`/chats/${id}`, { token: user.token }), 200);
}

async function until(user: TestUser, id: string, status: string): Promise<Chat> {
  await expect.poll(async () => (await chatOf(user, id)).status, { timeout: 20_000, interval: 100 }).toBe(status);
  return chatOf(user, id);
}

/** Starts a chat with `text` and waits until it lands in `status`. */
async function turn(user: TestUser, text: string, status = "waiting"): Promise<Chat> {
  const { id } = await expectJson<{ id: string }>(
    await api("/chats", { token: user.token, body: { content: [{ type: "text", text }] } }),
    201,
  );
  return until(user, id, status);
}

const storedKey = (providerId: string) =>
  withDb(
    async (db) =>
      (await db.$client.query("SELECT api_key, api_key_sealed_with FROM chat_providers WHERE id = $1", [providerId])).rows[0] as {
        api_key: string;
        api_key_sealed_with: string | null;
      },
  );

describe("provider API keys at rest", () => {
  const wires = [
    { name: "OpenAI-compatible (Authorization)", type: "openai-compatible" as const, model: "fake" },
    { name: "OpenAI Chat Completions (Authorization)", type: "openai" as const, model: "gpt-4o" },
    { name: "Anthropic Messages (x-api-key)", type: "anthropic" as const, model: "claude-sonnet-4-6" },
  ];

  it.each(wires)("are stored sealed and reach the provider in the clear over $name", async ({ type, model }) => {
    const key = `sk-${type}-${crypto.randomUUID()}`;
    const { user, providerId } = await userWithKey(type, model, key);
    const stored = await storedKey(providerId);
    expect(stored.api_key_sealed_with).toBe(testKeys.currentId);
    expect(stored.api_key).not.toContain(key);
    const tag = nonce();
    await turn(user, `sealed ${tag}`);
    const requests = await turnRequestsWith(tag);
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) expect(request.credentialSha256).toBe(await sha16(key));
  });

  it("written before sealing (plaintext, no key id), still reach the provider", async () => {
    const { user, providerId } = await userWithKey("openai", "gpt-4o", "placeholder");
    const legacy = `sk-legacy-${crypto.randomUUID()}`;
    await withDb((db) =>
      db.$client.query("UPDATE chat_providers SET api_key = $2, api_key_sealed_with = NULL WHERE id = $1", [providerId, legacy]),
    );
    const tag = nonce();
    await turn(user, `legacy ${tag}`);
    expect((await turnRequestsWith(tag)).map((r) => r.credentialSha256)).toContain(await sha16(legacy));
  });

  it("sealed with a key the deployment no longer holds, end the turn at once without reaching the provider", async () => {
    const key = `sk-gone-${crypto.randomUUID()}`;
    const { user, providerId } = await userWithKey("openai", "gpt-4o", key);
    await withDb((db) => db.$client.query("UPDATE chat_providers SET api_key_sealed_with = 'retired' WHERE id = $1", [providerId]));
    const tag = nonce();
    const chat = await turn(user, `unreadable ${tag}`, "error");
    // Refused while the call is prepared, so it is not retried: at most the attempt the send
    // recorded for the runner's first call with its acquisition (acquire-in-command.ts), unused.
    expect(chat.generation_attempt).toBeLessThanOrEqual(1);
    expect(chat.last_error?.message).toMatch(
      /API key of provider "keyed-\w+" cannot be opened with CHAT_SECRETS_KEYS \(unknown_secret_key\)/,
    );
    expect(chat.last_error?.message).not.toContain(key);
    expect(await turnRequestsWith(tag)).toEqual([]);
  });
});
