/**
 * The Worker: HTTP and WebSocket API (Hono), the Cron Trigger (sweep, auto-archive, purge), and the
 * ChatObject class.
 */
import { app } from "./app";
import { EXPERIMENTAL_BASE, experimentalApp } from "./experimental-app";
import { runScheduled } from "./cron/scheduled";

export { ChatObject } from "../durable-objects/chat-object";
export { ChatWatchObject } from "../durable-objects/chat-watch-object";

export default {
  fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    const experimental = pathname === EXPERIMENTAL_BASE || pathname.startsWith(`${EXPERIMENTAL_BASE}/`);
    return (experimental ? experimentalApp : app).fetch(request, env, ctx);
  },
  async scheduled(_controller, env, ctx) {
    await runScheduled(env, (p) => ctx.waitUntil(p));
  },
} satisfies ExportedHandler<Env>;
