/**
 * The spec's Gateway attribution keys: one synthetic api_keys row per chat owner, found by its
 * deterministic token name, that attributes AI Gateway requests to the owner. Its ID must stay
 * stable (an in-flight generation may have delegated it), so it is extended in place, never
 * replaced. It can never authenticate: its secret is discarded at mint, its scope is minimal, and
 * src/http/auth.ts refuses it by scope and shape regardless of the secret.
 */
import { and, asc, eq, ne } from "drizzle-orm";
import { createApiKey, TOKEN_LOGIN_TYPE } from "./api-keys";
import { LOCK_NAMESPACE, advisoryXactLock } from "../db/advisory-lock";
import { type Database, READ_COMMITTED } from "../db/database";
import { apiKeys, users } from "../db/schema/auth";

/** Defense in depth: a scope that grants nothing but attribution. */
export const ATTRIBUTION_SCOPE = "chatd:attribution";
export const ATTRIBUTION_KEY_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
/** Extend when less than this remains, so a key never expires under a running generation. */
export const ATTRIBUTION_KEY_EXTEND_BELOW_MS = 24 * 60 * 60 * 1000;

const NAME_PATTERN = /^chatd_.+_session_token$/;

export function attributionTokenName(ownerId: string): string {
  return `chatd_${ownerId}_session_token`;
}

/** Whether a key row is (or looks like) a synthetic attribution key; such keys never authenticate. */
export function isAttributionKey(key: { tokenName: string; loginType: string; scope: string }): boolean {
  return key.scope === ATTRIBUTION_SCOPE || (key.loginType !== TOKEN_LOGIN_TYPE && NAME_PATTERN.test(key.tokenName));
}

/** The owner of a chat has no user row (deleted): there is nobody to attribute to. */
export class AttributionOwnerNotFoundError extends Error {
  override name = "AttributionOwnerNotFoundError";
  readonly code = "attribution_owner_not_found";
  constructor(readonly ownerId: string) {
    super(`user ${ownerId} does not exist`);
  }
}

/** Spec: "User suspension and deletion still block delegated gateway authorization." */
export class AttributionOwnerSuspendedError extends Error {
  override name = "AttributionOwnerSuspendedError";
  readonly code = "attribution_owner_suspended";
  constructor(readonly ownerId: string) {
    super(`user ${ownerId} is suspended`);
  }
}

export interface AttributionKey {
  id: string;
  expiresAt: Date;
}

/**
 * The ID of the owner's attribution key: minted on first use, extended in place by 30 days from
 * `now` when less than 24 h remain (or it has expired), otherwise returned untouched.
 */
export async function ensureAttributionKey(db: Database, ownerId: string, now: Date): Promise<string> {
  return (await resolveAttributionKey(db, ownerId, now)).id;
}

/** ensureAttributionKey with the key's expiry after the call, for callers that cache the ID. */
export async function resolveAttributionKey(db: Database, ownerId: string, now: Date): Promise<AttributionKey> {
  // The common case, a live key far from its extension window, needs no lock: one read.
  const [peek] = await db
    .select({ suspended: users.suspended, id: apiKeys.id, expiresAt: apiKeys.expiresAt })
    .from(users)
    .leftJoin(
      apiKeys,
      and(eq(apiKeys.userId, users.id), eq(apiKeys.tokenName, attributionTokenName(ownerId)), ne(apiKeys.loginType, TOKEN_LOGIN_TYPE)),
    )
    .where(eq(users.id, ownerId))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
    .limit(1);
  if (!peek) throw new AttributionOwnerNotFoundError(ownerId);
  if (peek.suspended) throw new AttributionOwnerSuspendedError(ownerId);
  if (peek.id !== null && peek.expiresAt !== null && peek.expiresAt.getTime() - now.getTime() >= ATTRIBUTION_KEY_EXTEND_BELOW_MS) {
    return { id: peek.id, expiresAt: peek.expiresAt };
  }
  return mintOrExtend(db, ownerId, now);
}

async function mintOrExtend(db: Database, ownerId: string, now: Date): Promise<AttributionKey> {
  return db.transaction(async (tx) => {
    // The partial unique index on token names covers only login_type = 'token' rows, so this lock
    // is what keeps two mints for one user from both inserting.
    await advisoryXactLock(tx, LOCK_NAMESPACE.attributionKey, ownerId);
    const [owner] = await tx.select({ loginType: users.loginType, suspended: users.suspended }).from(users).where(eq(users.id, ownerId));
    if (!owner) throw new AttributionOwnerNotFoundError(ownerId);
    if (owner.suspended) throw new AttributionOwnerSuspendedError(ownerId);
    if (owner.loginType === TOKEN_LOGIN_TYPE) throw new Error(`user ${ownerId} has login type "token"; users never do`);

    const tokenName = attributionTokenName(ownerId);
    // Token names are user input: a real token a user named like this has login type "token".
    const [existing] = await tx
      .select({ id: apiKeys.id, expiresAt: apiKeys.expiresAt })
      .from(apiKeys)
      .where(and(eq(apiKeys.userId, ownerId), eq(apiKeys.tokenName, tokenName), ne(apiKeys.loginType, TOKEN_LOGIN_TYPE)))
      .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
      .limit(1);
    const expiresAt = new Date(now.getTime() + ATTRIBUTION_KEY_LIFETIME_MS);
    if (existing) {
      if (existing.expiresAt.getTime() - now.getTime() < ATTRIBUTION_KEY_EXTEND_BELOW_MS) {
        await tx.update(apiKeys).set({ expiresAt, updatedAt: now }).where(eq(apiKeys.id, existing.id));
        return { id: existing.id, expiresAt };
      }
      return existing;
    }
    // createApiKey hands back the token; dropping it here is what makes the key unusable as a credential.
    const { key } = await createApiKey(tx, { userId: ownerId, tokenName, loginType: owner.loginType, scope: ATTRIBUTION_SCOPE, expiresAt });
    return { id: key.id, expiresAt };
  }, READ_COMMITTED);
}
