/**
 * Users whose organization runs on fake models with known windows (`fake-ctx<N>` ids make the
 * fake model enforce the window the config declares), optionally with a compaction override.
 */
import { eq } from "drizzle-orm";
import { inject } from "vitest";
import { createModelConfig } from "../../../src/model-configs/configs";
import { createProvider } from "../../../src/model-configs/providers";
import { chatMessages } from "../../../src/db/schema/chats";
import { createTestUser, type TestUser, withDb } from "../../worker/support/accounts";
import { modelUsers } from "./model-user";
import { testKeys } from "../../support/test-keys";

export interface ModelSpec {
  contextLimit: number;
  compressionThreshold?: number | null;
  /** Another provider row type for the override (prompt re-sanitization); default openai-compatible. */
  providerType?: "openai-compatible" | "openai" | "anthropic";
}

export interface CompactionUser extends TestUser {
  chatModelId: string;
  /** The override's config id, when one was asked for. */
  overrideId?: string;
}

async function config(organizationId: string, spec: ModelSpec, isDefault: boolean): Promise<string> {
  return withDb(async (db) => {
    const type = spec.providerType ?? "openai-compatible";
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
    const row = await createModelConfig(
      db,
      organizationId,
      {
        providerId: provider.id,
        model: `fake-ctx${spec.contextLimit}`,
        isDefault,
        contextLimit: spec.contextLimit,
        compressionThreshold: spec.compressionThreshold ?? null,
      },
      new Date(),
    );
    return row.id;
  });
}

/** An organization admin whose default model is `chat`; with `override`, a second config for it. */
export async function compactionUser(chat: ModelSpec, override?: ModelSpec): Promise<CompactionUser> {
  const user = await createTestUser({ role: "admin" });
  const chatModelId = await config(user.organizationId, chat, true);
  modelUsers.push(user);
  if (override === undefined) return { ...user, chatModelId };
  return { ...user, chatModelId, overrideId: await config(user.organizationId, override, false) };
}

export interface StoredRow {
  role: string;
  model_only: boolean;
  compressed: boolean;
  content: { type: string; text?: string; tool_name?: string; args?: Record<string, unknown>; result?: Record<string, unknown> }[];
  usage: { input_tokens: number | null } | null;
}

/** Every active row of a chat, model-only ones included, in order (what prompts are built from). */
export async function storedRows(chatId: string): Promise<StoredRow[]> {
  const rows = await withDb((db) => db.select().from(chatMessages).where(eq(chatMessages.chatId, chatId)).orderBy(chatMessages.id));
  return rows
    .filter((r) => !r.deleted)
    .map((r) => ({
      role: r.role,
      model_only: r.modelOnly,
      compressed: r.compressed,
      content: r.content as StoredRow["content"],
      usage: r.usage,
    }));
}
