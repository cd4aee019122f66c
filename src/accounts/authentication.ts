/**
 * What makes a presented API token a caller: the key exists, its secret hashes to the stored one,
 * it carries a token scope (never a synthetic attribution key's), it has not expired and its user is
 * not suspended. What the caller may then do is also bounded by the key's scope (assertScope). The Worker (per-request pool) and the chat objects (warm pool, with a
 * cache: ./verified-keys.ts) both decide with this one function.
 */
import { type ApiKeyForAuth, TOKEN_SCOPES, type TokenScope } from "./api-keys";
import { isAttributionKey } from "./synthetic-key";
import { parseToken, verifySecret } from "./token";

/** Who is calling. */
export interface Caller {
  userId: string;
  /** Deployment-wide roles, e.g. "owner" (site owner). */
  siteRoles: readonly string[];
  /** The API key the request authenticated with. */
  apiKeyId: string;
  /** What that key may do: everything its user may, or only read model configurations. */
  scope: TokenScope;
}

/** A token that does not authenticate (401); the detail never says whether a key id exists. */
export class AuthenticationError extends Error {
  override name = "AuthenticationError";
  constructor(readonly detail: string) {
    super(detail);
  }
}

/** The key id and secret of a presented token, or the 401 for none or a malformed one. */
export function presentedKey(token: string | undefined): { token: string; id: string; secret: string } {
  if (!token) throw new AuthenticationError("No session token was provided.");
  const parsed = parseToken(token);
  if (!parsed) throw new AuthenticationError("The session token is malformed.");
  return { token, ...parsed };
}

/** The caller `secret` authenticates as with the key `found` (null: no such key), or the 401. */
export async function callerOf(found: ApiKeyForAuth | null, secret: string, now: Date): Promise<Caller> {
  if (!found || !(await verifySecret(secret, found.key.hashedSecret))) throw new AuthenticationError("The session token is invalid.");
  // Synthetic attribution keys never authenticate, even if someone held a matching secret.
  const scope = TOKEN_SCOPES.find((s) => s === found.key.scope);
  if (scope === undefined || isAttributionKey(found.key)) throw new AuthenticationError("The session token is invalid.");
  if (found.key.expiresAt.getTime() <= now.getTime()) throw new AuthenticationError("The session token has expired.");
  if (found.userSuspended) throw new AuthenticationError("The user is suspended.");
  return { userId: found.key.userId, siteRoles: found.siteRoles, apiKeyId: found.key.id, scope };
}

/** A route that `allowed` scopes may call, and a key of another (403 insufficient_scope). */
export class InsufficientScopeError extends Error {
  override name = "InsufficientScopeError";
  constructor(readonly scope: string) {
    super(`a token of scope ${scope} may not do this`);
  }
}

export function assertScope(caller: Pick<Caller, "scope">, allowed: readonly TokenScope[]): void {
  if (!allowed.includes(caller.scope)) throw new InsufficientScopeError(caller.scope);
}
