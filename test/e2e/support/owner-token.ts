/**
 * A token for a fixture owner (test/db/fixtures.ts makes the user and organization directly): the
 * owner joins its organization and gets an API key, so requests over HTTP act as it.
 */
import { createApiKey, TOKEN_LOGIN_TYPE } from "../../../src/accounts/api-keys";
import { addMember } from "../../../src/accounts/organizations";
import { createDb } from "../../../src/db/client";
import type { Env } from "../../db/fixtures";

export async function ownerToken(env: Env, tokenName: string): Promise<string> {
  const db = createDb(env.pool);
  await addMember(db, env.owner.organizationId, env.owner.userId, "member");
  const { token } = await createApiKey(db, {
    userId: env.owner.userId,
    tokenName,
    loginType: TOKEN_LOGIN_TYPE,
    expiresAt: new Date(Date.now() + 3_600_000),
  });
  return token;
}
