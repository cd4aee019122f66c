/**
 * A WebSocket upgrade the Worker forwarded with the client's token: the caller it authenticates
 * (on the object's warm pool and key cache), if the chat is theirs. Otherwise the answer the Worker
 * would give: 401 for the token, 404 for a chat that is missing or another user's.
 */
import type { Caller } from "../../src/accounts/authentication";
import { errorValue } from "../../src/chat-commands/error-value";
import { ownedBy } from "../../src/chat-commands/context";
import { apiErrorOf, DATABASE_UNAVAILABLE, errorBody, RETRY_AFTER_SECONDS } from "../../src/http/errors";
import { errorText, logger } from "../../src/log/log";
import type { ChatRuntime } from "./chat-runtime";

export async function authorizeSocket(runtime: ChatRuntime, chatId: string, token: string | undefined): Promise<Caller | Response> {
  try {
    const keys = runtime.keys();
    return await keys.afterRequest(async () => {
      const caller = await keys.callerFor(token, chatId);
      ownedBy(await runtime.store().identity(chatId), { chatId, callerId: caller.userId });
      await runtime.rateLimits().socketOpen(caller);
      return caller;
    });
  } catch (err) {
    const answer = apiErrorOf(errorValue(err));
    if (answer.status >= 500) logger.error("socket_authorize_failed", { chat_id: chatId, error: errorText(err) });
    const headers: Record<string, string> =
      answer.code === DATABASE_UNAVAILABLE
        ? { "Retry-After": RETRY_AFTER_SECONDS }
        : answer.retry
          ? { "Retry-After": String(answer.retry.retryAfterSeconds) }
          : {};
    return Response.json(errorBody(answer), { status: answer.status, headers });
  }
}
