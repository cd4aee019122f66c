/**
 * Signing in and out (docs/accounts.md): `POST /users/login` answers a session and sets it as the
 * HttpOnly session cookie; `POST /users/logout` revokes the key the request used, with every token
 * it minted, and clears the cookie.
 */
import { rateLimitsOf } from "../limits/rate-limits";
import { createRoute } from "@hono/zod-openapi";
import { signIn, signOut } from "../accounts/sessions";
import { configFromEnv } from "../config/env";
import { requireCaller } from "../http/auth";
import { jsonBodyLimit } from "../http/body-limit";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses, jsonBody, jsonContent } from "../http/router";
import { clearSessionCookie, setSessionCookie } from "../http/session-cookie";
import { LoginBody, LoginResponse, LogoutResponse } from "./user-schemas";

const loginRoute = createRoute({
  method: "post",
  path: "/login",
  summary: "Sign in with email and password: a session token, also set as the HttpOnly session cookie",
  security: [],
  middleware: [requestDb, jsonBodyLimit],
  request: { body: jsonBody(LoginBody) },
  responses: { 201: jsonContent(LoginResponse, "Signed in"), ...errorResponses(400, 401, 413, 429) },
});

const logoutRoute = createRoute({
  method: "post",
  path: "/logout",
  summary: "Sign out: the session (or token) the request authenticated with is revoked, with every token it minted",
  middleware: [requestDb, requireCaller],
  responses: { 200: jsonContent(LogoutResponse, "Signed out"), ...errorResponses(401, 403) },
});

export const sessions = createRouter()
  .openapi(loginRoute, async (c) => {
    const input = c.req.valid("json");
    const config = configFromEnv(c.env);
    const address = c.req.header("CF-Connecting-IP") ?? undefined;
    await rateLimitsOf(c.env).signIn(address, input.email);
    const session = await signIn(c.var.db, { ...input, address }, new Date(), config);
    setSessionCookie(c, session.token, config.CHAT_SESSION_MAX_SECONDS);
    return c.json({ session_token: session.token, expires_at: session.key.expiresAt.toISOString() }, 201);
  })
  .openapi(logoutRoute, async (c) => {
    await signOut(c.var.db, c.var.caller);
    clearSessionCookie(c);
    return c.json({ message: "Signed out." }, 200);
  });
