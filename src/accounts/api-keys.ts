/**
 * API keys: the stored half of `<id>-<secret>` tokens. User-created keys have login type
 * "token"; session keys and the synthetic attribution keys carry the user's own login type.
 */
import { and, desc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { mintToken } from "./token";
import type { Database } from "../db/database";
import { isUniqueViolation } from "../db/pg-errors";
import { apiKeys, users } from "../db/schema/auth";
import { AlreadyExistsError } from "./errors";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** A token that may do all its user may. */
export const FULL_SCOPE = "all";
/** A token that may only read model configurations and discover models (the spec's chat model configuration read scope). */
export const MODEL_CONFIG_READ_SCOPE = "chat_model_config:read";
/** The scopes a token may carry (docs/accounts.md "Scopes"); the synthetic attribution keys' is none of them. */
export const TOKEN_SCOPES = [FULL_SCOPE, MODEL_CONFIG_READ_SCOPE] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];
/** The login type of keys users create with `POST /users/{user}/keys/tokens`. */
export const TOKEN_LOGIN_TYPE = "token";
/** `last_used_at` moves at most this often: one write a minute per key, not one per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;
/** The token name of sign-in sessions (and of the first user's token): the keys a use renews. */
export const SESSION_TOKEN_NAME = "session";

export interface NewApiKey {
  userId: string;
  tokenName: string;
  loginType: string;
  /** FULL_SCOPE when absent. A key minted with a parent never has more than it (a read-only key mints nothing: routes need the full scope). */
  scope?: string;
  expiresAt: Date;
  /** The key this one is minted with: it expires no later, and deleting that key deletes this one. */
  parent?: Pick<ApiKeyRow, "id" | "expiresAt"> | undefined;
}

/** How a session is renewed on use: idle this long it expires, and never past `maxMs` after it was made. */
export interface SessionLifetime {
  idleMs: number;
  maxMs: number;
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
        expiresAt: input.parent && input.parent.expiresAt < input.expiresAt ? input.parent.expiresAt : input.expiresAt,
        parentKeyId: input.parent?.id ?? null,
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
  /**
   * With a chat named: whether the user belongs to that chat's organization (true while the chat
   * does not exist yet: its Create checks the organization it names).
   */
  inChatOrganization?: boolean;
}

/** The key `id` with its user; with `chatId`, in the same statement, the user's membership of that chat's organization. */
export async function findApiKeyForAuth(db: Database, id: string, chatId?: string): Promise<ApiKeyForAuth | null> {
  const inChatOrganization = sql<boolean>`NOT EXISTS (SELECT 1 FROM chats c WHERE c.id = ${chatId ?? null}::uuid)
    OR EXISTS (SELECT 1 FROM organization_members m JOIN chats c ON c.organization_id = m.organization_id
               WHERE c.id = ${chatId ?? null}::uuid AND m.user_id = ${apiKeys.userId})`;
  const [row] = await db
    .select({
      key: apiKeys,
      userSuspended: users.suspended,
      siteRoles: users.siteRoles,
      ...(chatId === undefined ? {} : { inChatOrganization }),
    })
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

/**
 * Records use, unless it was already recorded within the last minute (then it writes nothing). A
 * session's use renews it: its expiry moves to `idleMs` from now, but never past `maxMs` after it
 * was made, and never back.
 */
export async function touchApiKey(db: Database, id: string, now: Date, sessions: SessionLifetime): Promise<void> {
  const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  const renewed = new Date(now.getTime() + sessions.idleMs);
  await db
    .update(apiKeys)
    .set({
      lastUsedAt: now,
      expiresAt: sql`CASE WHEN ${apiKeys.tokenName} = ${SESSION_TOKEN_NAME} AND ${apiKeys.loginType} <> ${TOKEN_LOGIN_TYPE}
        THEN greatest(${apiKeys.expiresAt}, least(${renewed}::timestamptz, ${apiKeys.createdAt} + make_interval(secs => ${sessions.maxMs / 1000})))
        ELSE ${apiKeys.expiresAt} END`,
    })
    .where(and(eq(apiKeys.id, id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, stale))));
}

/** Whether `key` is a session, which use renews (touchApiKey). */
export function isSession(key: Pick<ApiKeyRow, "tokenName" | "loginType">): boolean {
  return key.tokenName === SESSION_TOKEN_NAME && key.loginType !== TOKEN_LOGIN_TYPE;
}

/** The expiry a use at `now` gives `key`: touchApiKey's rule, for a copy of the row held in memory. */
export function renewedExpiry(
  key: Pick<ApiKeyRow, "tokenName" | "loginType" | "expiresAt" | "createdAt">,
  now: Date,
  sessions: SessionLifetime,
): Date {
  if (!isSession(key)) return key.expiresAt;
  const renewed = Math.min(now.getTime() + sessions.idleMs, key.createdAt.getTime() + sessions.maxMs);
  return new Date(Math.max(key.expiresAt.getTime(), renewed));
}

/** A user's own keys, newest first: tokens and sessions (never the synthetic attribution keys), without secrets. */
export async function listApiKeys(db: Database, userId: string): Promise<ApiKeyRow[]> {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), inArray(apiKeys.scope, [...TOKEN_SCOPES])))
    .orderBy(desc(apiKeys.createdAt), apiKeys.id);
}

/** Deletes `userId`'s key `id` (and, by the foreign key, every key minted with it); whether it existed. */
export async function deleteApiKey(db: Database, userId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId), inArray(apiKeys.scope, [...TOKEN_SCOPES])))
    .returning({ id: apiKeys.id });
  return deleted.length > 0;
}

export async function getApiKey(db: Database, id: string): Promise<ApiKeyRow | null> {
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, id));
  return row ?? null;
}

/** Removes a user's keys of one name and login type (the dev seed replaces its token each run). */
export async function deleteApiKeysByName(db: Database, userId: string, tokenName: string, loginType: string): Promise<void> {
  await db.delete(apiKeys).where(and(eq(apiKeys.userId, userId), eq(apiKeys.tokenName, tokenName), eq(apiKeys.loginType, loginType)));
}
