/**
 * The session cookie (docs/accounts.md): set by `POST /users/login`, cleared by logout. HttpOnly,
 * so no script on the page can read it; Secure everywhere but a local host (where the dev server
 * speaks plain HTTP); SameSite=Lax. A request it authenticates that changes something, and a
 * WebSocket upgrade it authenticates, must come from the service's own origin or an allowed one
 * (originAllowed): a cookie goes with a cross-site request, while a page can forge neither the
 * Origin nor the Referer header. The Referer counts only when the browser sent no Origin at all.
 */
import type { Context } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "./app-env";
import { isAllowedOrigin, pageOrigin } from "./page-origin";

export const SESSION_COOKIE = "coder_session_token";

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

function isLocal(c: Context<AppEnv>): boolean {
  return LOCAL_HOSTS.has(new URL(c.req.url).hostname);
}

export function setSessionCookie(c: Context<AppEnv>, token: string, maxAgeSeconds: number): void {
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    secure: !isLocal(c),
    sameSite: "Lax",
    path: "/",
    maxAge: maxAgeSeconds,
  });
}

export function clearSessionCookie(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: !isLocal(c), httpOnly: true, sameSite: "Lax" });
}

/** Methods that change nothing: a cookie may authenticate them from anywhere (they answer only to the browser's own origin rules). */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Whether a request the cookie authenticates needs its Origin checked: a change, or a WebSocket upgrade. */
export function needsOriginCheck(c: Context<AppEnv>): boolean {
  return !SAFE_METHODS.has(c.req.method) || c.req.header("Upgrade")?.toLowerCase() === "websocket";
}

/** The request comes from a page of the service's own origin or one of `allowed`; a request that names no page is not allowed. */
export function originAllowed(c: Context<AppEnv>, allowed: readonly string[]): boolean {
  const page = pageOrigin(c.req.header("Origin"), c.req.header("Referer"));
  return isAllowedOrigin(page, new URL(c.req.url).origin, allowed);
}
