/**
 * `GET /chats/watch`: the live chat list (docs/api.md "Chat list watch"), a one-way WebSocket as
 * Coder's. The Worker authenticates the upgrade (headers, the cookie, or the `coder_session_token`
 * query parameter, as the chat streams take it), counts it against the socket-open rate limit and
 * hands it to the caller's watch object, which holds it (durable-objects/chat-watch-object.ts).
 * Mounted before the `/chats/{chat}` routes, which would read `watch` as a chat id.
 */
import { Hono } from "hono";
import { WATCH_KEY_HEADER, WATCH_USER_HEADER } from "../../durable-objects/chat-watch/headers";
import type { AppEnv } from "../http/app-env";
import { requireStreamCaller } from "../http/auth";
import { ApiError } from "../http/errors";
import { requestDb } from "../http/request-db";
import { rateLimitsOf } from "../limits/rate-limits";
import { currentRequestId, REQUEST_ID_HEADER } from "../log/request-context";
import { chatWatchStub } from "../placement/chat-watch-stub";

export const chatWatch = new Hono<AppEnv>();

chatWatch.get("/watch", async (c, next) => {
  if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") throw new ApiError(426, "upgrade_required", "This endpoint is a WebSocket.");
  await next();
});
chatWatch.get("/watch", requestDb, requireStreamCaller, async (c) => {
  const caller = c.var.caller;
  await rateLimitsOf(c.env).socketOpen(caller);
  const headers = new Headers(c.req.raw.headers);
  headers.set(WATCH_USER_HEADER, caller.userId);
  headers.set(WATCH_KEY_HEADER, caller.apiKeyId);
  headers.set(REQUEST_ID_HEADER, currentRequestId() ?? crypto.randomUUID());
  return chatWatchStub(c.env, caller.userId).fetch(new Request(c.req.raw.url, { headers }));
});
