import { inject } from "vitest";
import { createModelConfig } from "../../../src/db/model-configs/configs";
import { createProvider } from "../../../src/db/model-configs/providers";
import { createTestUser, type TestUser, withDb } from "../../worker/support/accounts";

/** A user whose organization's default model is the fake model (openai-compatible over HTTP). */
export async function userWithModel(): Promise<TestUser> {
  const user = await createTestUser();
  await withDb(async (db) => {
    const provider = await createProvider(db, {
      type: "openai-compatible",
      name: `fake-${crypto.randomUUID().slice(0, 8)}`,
      baseUrl: `${inject("fakeModelUrl")}/v1`,
      apiKey: "x",
      enabled: true,
    });
    await createModelConfig(db, user.organizationId, { providerId: provider.id, model: "fake", isDefault: true }, new Date());
  });
  return user;
}
