/**
 * The Worker: HTTP and WebSocket API (Hono), the cron sweep, and the ChatObject class.
 */
import { app } from "./app";

export { ChatObject } from "../durable-objects/chat-object";

export default {
  fetch: app.fetch,
  async scheduled(_controller, _env, _ctx) {
    // The acquisition sweep and heartbeat cleanup arrive with the chat worker.
  },
} satisfies ExportedHandler<Env>;
