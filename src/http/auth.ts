/**
 * Authentication (docs/api.md "Auth"): a token from `Authorization: Bearer`, `Coder-Session-Token`,
 * and on stream routes (browsers cannot set WebSocket headers) the `coder_session_token` cookie
 * or query parameter. Sets `c.var.caller`; needs `requestDb` before it. Every failure is 401
 * `unauthorized`; the detail never says whether a key ID exists.
 */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { isAttributionKey } from "../accounts/synthetic-key";
import { parseToken, verifySecret } from "../accounts/token";
import { FULL_SCOPE, findApiKeyForAuth, touchApiKey, usageIsStale } from "../accounts/api-keys";
import type { AppEnv, Caller } from "./app-env";
import { ApiError } from "./errors";

const SESSION_HEADER = "Coder-Session-Token";
const SESSION_COOKIE = "coder_session_token";
const SESSION_QUERY = "coder_session_token";

function unauthorized(detail: string): ApiError {
  return new ApiError(401, "unauthorized", "Unauthorized.", detail);
}

function presentedToken(c: Context<AppEnv>, streamCredentials: boolean): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("Authorization") ?? "");
  if (bearer?.[1]) return bearer[1];
  const header = c.req.header(SESSION_HEADER)?.trim();
  if (header) return header;
  if (!streamCredentials) return undefined;
  return getCookie(c, SESSION_COOKIE) || c.req.query(SESSION_QUERY) || undefined;
}

/** The caller a token authenticates, or the 401 to answer. */
export async function authenticate(c: Context<AppEnv>, token: string | undefined, now: Date): Promise<Caller> {
  if (!token) throw unauthorized("No session token was provided.");
  const parsed = parseToken(token);
  if (!parsed) throw unauthorized("The session token is malformed.");
  const db = c.var.db;
  const found = await findApiKeyForAuth(db, parsed.id);
  if (!found || !(await verifySecret(parsed.secret, found.key.hashedSecret))) throw unauthorized("The session token is invalid.");
  // Synthetic attribution keys never authenticate, even if someone held a matching secret.
  if (found.key.scope !== FULL_SCOPE || isAttributionKey(found.key)) throw unauthorized("The session token is invalid.");
  if (found.key.expiresAt.getTime() <= now.getTime()) throw unauthorized("The session token has expired.");
  if (found.userSuspended) throw unauthorized("The user is suspended.");
  if (usageIsStale(found.key, now)) await touchApiKey(db, found.key.id, now);
  return { userId: found.key.userId, siteRoles: found.siteRoles, apiKeyId: found.key.id };
}

function callerMiddleware(streamCredentials: boolean) {
  return createMiddleware<AppEnv>(async (c, next) => {
    c.set("caller", await authenticate(c, presentedToken(c, streamCredentials), new Date()));
    await next();
  });
}

/** Headers only: every JSON route. */
export const requireCaller = callerMiddleware(false);
/** Headers, then the cookie or query parameter: the WebSocket stream routes only. */
export const requireStreamCaller = callerMiddleware(true);
