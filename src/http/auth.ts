/**
 * Authentication (docs/api.md "Auth"): a token from `Authorization: Bearer`, `Coder-Session-Token`,
 * the `coder_session_token` cookie (session-cookie.ts: a change or a WebSocket upgrade it
 * authenticates must come from an allowed Origin, else 403 `origin_not_allowed`), and on stream
 * routes (browsers cannot set WebSocket headers) the query parameter. Every failure to
 * authenticate is 401 `unauthorized`; the detail never says whether a key ID exists.
 *
 * A key's scope bounds the routes it may call (docs/accounts.md "Scopes"): every route needs the
 * full scope but the model-configuration reads (requireModelConfigReader); the chat objects accept
 * full-scope keys only. A key of another scope is 403 `insufficient_scope`.
 *
 * Two ways, by where the request goes (docs/hot-path.md):
 * - `requireCaller` authenticates here, on the request's own pool (needs `requestDb` before it):
 *   routes that are not about one chat (users, providers, model configs, listing chats).
 * - `requireCredentials` only takes the token and checks its form; the chat's object, which
 *   holds a warm pool and a short cache of verified keys, authenticates it with the command. The
 *   Worker opens no database connection on a chat's hot path.
 *
 * Sub-routers mounted on one prefix share their `use` middleware (Hono mounts it as `prefix/*`),
 * so each of these runs once per request however many routers registered it.
 */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { FULL_SCOPE, findApiKeyForAuth, MODEL_CONFIG_READ_SCOPE, type TokenScope, touchApiKey, usageIsStale } from "../accounts/api-keys";
import { assertScope, type Caller, callerOf, presentedKey } from "../accounts/authentication";
import { sessionLifetime } from "../accounts/sessions";
import { configFromEnv } from "../config/env";
import { rateLimitsOf } from "../limits/rate-limits";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";
import { needsOriginCheck, originAllowed, SESSION_COOKIE } from "./session-cookie";

const SESSION_HEADER = "Coder-Session-Token";
const SESSION_QUERY = "coder_session_token";

/**
 * The token the request presents: a header first, then the session cookie (refused when the
 * request needs an allowed Origin and has none), then, on stream routes, the query parameter.
 */
function presentedToken(c: Context<AppEnv>, streamCredentials: boolean): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("Authorization") ?? "");
  if (bearer?.[1]) return bearer[1];
  const header = c.req.header(SESSION_HEADER)?.trim();
  if (header) return header;
  const cookie = getCookie(c, SESSION_COOKIE);
  if (cookie) {
    if (needsOriginCheck(c) && !originAllowed(c, configFromEnv(c.env).CHAT_ALLOWED_ORIGINS)) {
      throw new ApiError(403, "origin_not_allowed", "Forbidden.", "The session cookie is not accepted from this page's origin.");
    }
    return cookie;
  }
  return streamCredentials ? c.req.query(SESSION_QUERY) || undefined : undefined;
}

/** The caller a token authenticates, read on the request's pool, or AuthenticationError. */
export async function authenticate(c: Context<AppEnv>, token: string | undefined, now: Date): Promise<Caller> {
  const { id, secret } = presentedKey(token);
  const db = c.var.db;
  const found = await findApiKeyForAuth(db, id);
  const caller = await callerOf(found, secret, now);
  if (found && usageIsStale(found.key, now)) await touchApiKey(db, id, now, sessionLifetime(configFromEnv(c.env)));
  return caller;
}

const changesState = (method: string) => method !== "GET" && method !== "HEAD" && method !== "OPTIONS";

/** Authenticates once per request (and counts a change against the caller's write limits); each route's middleware then checks the key's scope against its own. */
function callerMiddleware(streamCredentials: boolean, scopes: readonly TokenScope[]) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!c.var.caller) {
      const caller = await authenticate(c, presentedToken(c, streamCredentials), new Date());
      c.set("caller", caller);
      if (changesState(c.req.method)) await rateLimitsOf(c.env).write(caller);
    }
    assertScope(c.var.caller, scopes);
    await next();
  });
}

function credentialsMiddleware(streamCredentials: boolean) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (c.var.credentials === undefined) {
      // Refused here when it cannot be a token at all: nothing to send to the object.
      c.set("credentials", presentedKey(presentedToken(c, streamCredentials)).token);
    }
    await next();
  });
}

/** Headers or the cookie: JSON routes authenticated in the Worker, for a full-scope key. */
export const requireCaller = callerMiddleware(false, [FULL_SCOPE]);
/** requireCaller that a model-configuration read key may pass too (model discovery and config reads). */
export const requireModelConfigReader = callerMiddleware(false, [FULL_SCOPE, MODEL_CONFIG_READ_SCOPE]);
/** Headers, the cookie, then the query parameter, authenticated here: the chat list watch (src/routes/chat-watch.ts). */
export const requireStreamCaller = callerMiddleware(true, [FULL_SCOPE]);
/** Headers or the cookie: a chat's JSON routes, authenticated by the chat's object. */
export const requireCredentials = credentialsMiddleware(false);
/** Headers, the cookie, then the query parameter: the chat's WebSocket routes, authenticated by its object. */
export const requireStreamCredentials = credentialsMiddleware(true);
