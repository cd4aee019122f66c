/**
 * The chat's WebSockets, handed to the chat's object with the presented token (a browser cannot
 * set headers on a WebSocket: cookie or query token too), which authenticates it, checks the chat
 * is the caller's and runs them (docs/hot-path.md):
 * - `GET /chats/{chat}/stream` (spec "Stream loop"), optionally resuming from the client's cursors;
 * - `GET /chats/{chat}/stream/parts` (spec "Parts endpoint"), where the part buffer lives.
 */
import { type Context, Hono } from "hono";
import { CHAT_ID_HEADER, CREDENTIALS_HEADER, STREAM_CURSORS_HEADER } from "../../durable-objects/chat-object/headers";
import type { AppEnv } from "../http/app-env";
import { requireStreamCredentials } from "../http/auth";
import { ApiError } from "../http/errors";
import { currentRequestId, REQUEST_ID_HEADER } from "../log/request-context";
import { cursorsFromResume, resumeQuerySchema } from "../stream/resume-cursors";
import { chatObjectStub } from "../placement/chat-object-stub";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const chatStream = new Hono<AppEnv>();
chatStream.use("/:chat/stream", requireStreamCredentials);
chatStream.use("/:chat/stream/*", requireStreamCredentials);

chatStream.get("/:chat/stream", async (c) => {
  const query = resumeQuerySchema.safeParse(c.req.query());
  if (!query.success)
    throw new ApiError(
      400,
      "validation_failed",
      "Request validation failed.",
      undefined,
      query.error.issues.map((i) => ({ field: i.path.join(".") || "query", detail: i.message })),
    );
  return forwardUpgrade(c, { [STREAM_CURSORS_HEADER]: JSON.stringify(cursorsFromResume(query.data)) });
});

chatStream.get("/:chat/stream/parts", (c) => forwardUpgrade(c, {}));

/** Checks the upgrade, then hands it to the chat's object, which authorizes it. */
async function forwardUpgrade(c: Context<AppEnv>, extra: Record<string, string>): Promise<Response> {
  const chatId = c.req.param("chat") ?? "";
  if (!UUID.test(chatId))
    throw new ApiError(400, "validation_failed", "Request validation failed.", undefined, [{ field: "chat", detail: "a UUID" }]);
  if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") throw new ApiError(426, "upgrade_required", "This endpoint is a WebSocket.");
  const headers = new Headers(c.req.raw.headers);
  headers.set(CHAT_ID_HEADER, chatId);
  headers.set(CREDENTIALS_HEADER, c.var.credentials);
  headers.set(REQUEST_ID_HEADER, currentRequestId() ?? crypto.randomUUID());
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  const stub = chatObjectStub(c.env, chatId);
  return stub.fetch(new Request(c.req.raw.url, { headers }));
}
