/**
 * The Worker: HTTP and WebSocket API (Hono), the cron sweep, and the ChatObject class.
 */
import { app } from "./app";
import { sweep } from "./cron/sweep";

export { ChatObject } from "../durable-objects/chat-object";

export default {
  fetch: app.fetch,
  async scheduled(_controller, env, ctx) {
    await sweep(env, (p) => ctx.waitUntil(p));
  },
} satisfies ExportedHandler<Env>;
