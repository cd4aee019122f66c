/**
 * The Worker: HTTP and WebSocket API (Hono), the Cron Trigger (sweep, auto-archive, purge), and the
 * ChatObject class.
 */
import { app } from "./app";
import { runScheduled } from "./cron/scheduled";

export { ChatObject } from "../durable-objects/chat-object";

export default {
  fetch: app.fetch,
  async scheduled(_controller, env, ctx) {
    await runScheduled(env, (p) => ctx.waitUntil(p));
  },
} satisfies ExportedHandler<Env>;
