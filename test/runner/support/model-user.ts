import { inArray } from "drizzle-orm";
import { inject } from "vitest";
import { createModelConfig } from "../../../src/model-configs/configs";
import type { ModelConfigOptions } from "../../../src/model-configs/options";
import { createProvider, type ProviderType } from "../../../src/model-configs/providers";
import { chats } from "../../../src/db/schema/chats";
import { api, createTestUser, type TestUser, type TestUserOptions, withDb } from "../../worker/support/accounts";
import { testKeys } from "../../support/test-keys";

/** Every user made here, so a file's teardown can release what its chats still hold. */
export const modelUsers: TestUser[] = [];

/** A user whose organization's default model is the fake model (openai-compatible over HTTP). */
export function userWithModel(opts: TestUserOptions = {}): Promise<TestUser> {
  return userWithProvider("openai-compatible", "fake", {}, opts);
}

/**
 * A user whose organization's default model is `model` on a `type` provider at the fake model: the
 * model's name picks the transport of an OpenAI provider (Responses or Chat Completions).
 */
export async function userWithProvider(
  type: ProviderType,
  model: string,
  options: ModelConfigOptions = {},
  opts: TestUserOptions = {},
): Promise<TestUser> {
  const user = await createTestUser(opts);
  await withDb(async (db) => {
    const provider = await createProvider(
      db,
      {
        type,
        name: `fake-${crypto.randomUUID().slice(0, 8)}`,
        baseUrl: `${inject("fakeModelUrl")}/v1`,
        apiKey: "x",
        enabled: true,
      },
      testKeys,
    );
    await createModelConfig(db, user.organizationId, { providerId: provider.id, model, isDefault: true, options }, new Date());
  });
  modelUsers.push(user);
  return user;
}

/**
 * Teardown for a runner test file: archive every chat its users left behind and wait until no
 * object owns one. A chat's object keeps ticking (and logging) while it owns the chat; that must
 * end with the file, not outlive it into the next one.
 */
export async function releaseChatsOf(users: readonly TestUser[], timeoutMs = 30_000): Promise<void> {
  const ownerIds = users.map((u) => u.id);
  if (ownerIds.length === 0) return;
  const live = () =>
    withDb((db) =>
      db
        .select({ id: chats.id, ownerId: chats.ownerId, archived: chats.archived, workerId: chats.workerId })
        .from(chats)
        .where(inArray(chats.ownerId, ownerIds)),
    );
  const tokenOf = new Map(users.map((u) => [u.id, u.token]));
  for (const chat of await live()) {
    if (chat.archived) continue;
    await archive(chat.id, tokenOf.get(chat.ownerId), timeoutMs);
  }
  // A chat whose runner lost its lease keeps its (stale) worker_id and, archived, is never taken
  // over; its object no longer ticks for it, so after a bounded wait there is nothing left to stop.
  const deadline = Date.now() + Math.min(timeoutMs, 15_000);
  for (;;) {
    const owned = (await live()).filter((c) => c.workerId !== null);
    if (owned.length === 0 || Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Archives a chat; states that refuse it (running, requires_action) are interrupted first, until it lands. */
async function archive(chatId: string, token: string | undefined, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(`/chats/${chatId}`, { method: "PATCH", token, body: { archived: true } });
    if (res.ok) return;
    if (res.status !== 409 || Date.now() > deadline)
      throw new Error(`archiving chat ${chatId} at teardown: ${res.status} ${await res.text()}`);
    await api(`/chats/${chatId}/interrupt`, { method: "POST", token });
    await new Promise((r) => setTimeout(r, 200));
  }
}
