/**
 * API keys: the stored half of `<id>-<secret>` tokens. User-created keys have login type
 * "token"; session keys and the synthetic attribution keys carry the user's own login type.
 */
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { mintToken } from "./token";
import type { Database } from "../db/database";
import { isUniqueViolation } from "../db/pg-errors";
import { apiKeys, users } from "../db/schema/auth";
import { AlreadyExistsError } from "./errors";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** The only scope that authenticates requests. */
export const FULL_SCOPE = "all";
/** The login type of keys users create with `POST /users/{user}/keys/tokens`. */
export const TOKEN_LOGIN_TYPE = "token";
/** `last_used_at` moves at most this often: one write a minute per key, not one per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export interface NewApiKey {
  userId: string;
  tokenName: string;
  loginType: string;
  scope?: string;
  expiresAt: Date;
}

/** Stores a fresh key; the token (with its secret) is returned this once and never again. */
export async function createApiKey(db: Database, input: NewApiKey): Promise<{ key: ApiKeyRow; token: string }> {
  const minted = await mintToken();
  try {
    const [key] = await db
      .insert(apiKeys)
      .values({
        id: minted.id,
        userId: input.userId,
        hashedSecret: minted.hashedSecret,
        tokenName: input.tokenName,
        loginType: input.loginType,
        scope: input.scope ?? FULL_SCOPE,
        expiresAt: input.expiresAt,
      })
      .returning();
    if (!key) throw new Error("insert into api_keys returned no row");
    return { key, token: minted.token };
  } catch (err) {
    if (isUniqueViolation(err, "api_keys_user_token_name_idx")) throw new AlreadyExistsError("token", "token_name");
    throw err;
  }
}

/** What authentication needs: the key and the state of its user. */
export interface ApiKeyForAuth {
  key: ApiKeyRow;
  userSuspended: boolean;
  siteRoles: string[];
}

export async function findApiKeyForAuth(db: Database, id: string): Promise<ApiKeyForAuth | null> {
  const [row] = await db
    .select({ key: apiKeys, userSuspended: users.suspended, siteRoles: users.siteRoles })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(eq(apiKeys.id, id));
  return row ?? null;
}

/**
 * Whether `last_used_at`, as the key's row was just read, is old enough to record again: most
 * requests then skip the UPDATE and its round trip. touchApiKey's own condition keeps racing
 * requests to one write.
 */
export function usageIsStale(key: Pick<ApiKeyRow, "lastUsedAt">, now: Date): boolean {
  return key.lastUsedAt === null || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS;
}

/** Records use, unless it was already recorded within the last minute (then it writes nothing). */
export async function touchApiKey(db: Database, id: string, now: Date): Promise<void> {
  const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  await db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(and(eq(apiKeys.id, id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, stale))));
}

export async function getApiKey(db: Database, id: string): Promise<ApiKeyRow | null> {
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, id));
  return row ?? null;
}

/** Removes a user's keys of one name and login type (the dev seed replaces its token each run). */
export async function deleteApiKeysByName(db: Database, userId: string, tokenName: string, loginType: string): Promise<void> {
  await db.delete(apiKeys).where(and(eq(apiKeys.userId, userId), eq(apiKeys.tokenName, tokenName), eq(apiKeys.loginType, loginType)));
}
