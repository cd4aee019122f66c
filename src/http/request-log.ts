/**
 * One structured line per HTTP request (`http_request`): method, path without its query (a stream
 * URL may carry a token there), status, duration, and the chat and caller when
 * known; never a credential. Every response names its request in `x-request-id`, and log lines
 * written while it runs carry the same `request_id` (see src/log/request-context.ts).
 */
import type { MiddlewareHandler } from "hono";
import { configFromEnv } from "../config/env";
import { logger, setLogLevel } from "../log/log";
import { REQUEST_ID_HEADER, requestIdFrom, runInRequest } from "../log/request-context";
import type { AppEnv } from "./app-env";

const CHAT_PATH = /\/chats\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\/|$)/i;

export const requestLog: MiddlewareHandler<AppEnv> = async (c, next) => {
  setLogLevel(configFromEnv(c.env).LOG_LEVEL);
  const requestId = requestIdFrom(c.req.header(REQUEST_ID_HEADER));
  const started = Date.now();
  const path = new URL(c.req.url).pathname;
  await runInRequest(requestId, async () => {
    try {
      await next();
    } finally {
      const status = c.res.status;
      const fields = {
        method: c.req.method,
        path,
        status,
        duration_ms: Date.now() - started,
        chat_id: CHAT_PATH.exec(path)?.[1],
        user_id: c.get("caller")?.userId ?? c.get("authenticatedUserId"),
      };
      if (status >= 500) logger.error("http_request", fields);
      else logger.info("http_request", fields);
    }
  });
  // A WebSocket upgrade's response is immutable; the object's session line names the request instead.
  if (c.res.status === 101) return;
  try {
    c.res.headers.set(REQUEST_ID_HEADER, requestId);
  } catch {
    // A response passed through from elsewhere has immutable headers: copy it.
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set(REQUEST_ID_HEADER, requestId);
  }
};
