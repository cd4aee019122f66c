/**
 * The log line of one WebSocket session (`ws_session`): which chat, whose, which request opened
 * it, how long it lasted and how it closed. The Worker names the request in a header when it
 * forwards the upgrade, and the object learns the caller and their key from the token; a stream
 * socket keeps them in its attachment, so a session that outlives a hibernation is still logged
 * once, when it ends, and its key is still rechecked.
 */
import { logger } from "../../src/log/log";

export interface SocketSession {
  readonly requestId: string;
  readonly userId: string | null;
  /** The API key the socket authenticated with, rechecked while it is open (socket-credentials.ts). */
  readonly keyId?: string;
  readonly openedAt: number;
}

export function socketSession(requestId: string, caller: { userId: string; apiKeyId: string }): SocketSession {
  return { requestId, userId: caller.userId, keyId: caller.apiKeyId, openedAt: Date.now() };
}

export function logSocketSession(kind: "stream" | "parts", chatId: string, session: SocketSession | undefined, code: number | null): void {
  logger.info("ws_session", {
    kind,
    chat_id: chatId,
    user_id: session?.userId ?? undefined,
    request_id: session?.requestId,
    duration_ms: session ? Date.now() - session.openedAt : undefined,
    close_code: code,
  });
}
