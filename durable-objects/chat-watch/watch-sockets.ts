/**
 * A user's open /chats/watch sockets: hibernatable, the session they opened with in their
 * attachment (who, with which key, since when), so an object rebuilt after hibernation still knows
 * whose they are and rechecks their key. One-way: the server reads nothing the client sends.
 */
import { errorText, logger } from "../../src/log/log";
import type { ChatWatchEvent } from "../../src/watch/watch-events";

export const WATCH_SOCKET_TAG = "watch";
/**
 * The largest frame a watcher is sent. An event is one Chat, whose fields the routes bound (title,
 * labels, summaries); one that is larger anyway is logged and not sent: the client's next list read
 * has it.
 */
export const MAX_WATCH_FRAME_BYTES = 256 * 1024;

export interface WatchSession {
  readonly requestId: string;
  readonly userId: string;
  readonly keyId: string;
  readonly openedAt: number;
}

export class WatchSockets {
  constructor(private readonly state: DurableObjectState) {}

  open(server: WebSocket, session: WatchSession): void {
    this.state.acceptWebSocket(server, [WATCH_SOCKET_TAG]);
    server.serializeAttachment(session);
  }

  all(): { socket: WebSocket; session: WatchSession | null }[] {
    return this.state
      .getWebSockets(WATCH_SOCKET_TAG)
      .map((socket) => ({ socket, session: socket.deserializeAttachment() as WatchSession | null }));
  }

  count(): number {
    return this.state.getWebSockets(WATCH_SOCKET_TAG).length;
  }

  /** The user these sockets belong to (every one is theirs: the object is named by the user). */
  userId(): string | null {
    for (const { session } of this.all()) if (session) return session.userId;
    return null;
  }

  oldestOpenedAt(): number | null {
    let oldest: number | null = null;
    for (const { session } of this.all()) if (session && (oldest === null || session.openedAt < oldest)) oldest = session.openedAt;
    return oldest;
  }

  broadcast(event: ChatWatchEvent): void {
    const frame = JSON.stringify(event);
    if (frame.length > MAX_WATCH_FRAME_BYTES / 3 && new TextEncoder().encode(frame).byteLength > MAX_WATCH_FRAME_BYTES) {
      logger.warn("watch_frame_too_large", { chat_id: event.chat.id, kind: event.kind, bytes: frame.length });
      return;
    }
    for (const socket of this.state.getWebSockets(WATCH_SOCKET_TAG)) {
      try {
        socket.send(frame);
      } catch (err) {
        // Closing: its close handler logs it.
        logger.debug("watch_send_failed", { error: errorText(err) });
      }
    }
  }

  close(socket: WebSocket, code: number, reason: string): void {
    try {
      socket.close(code, reason);
    } catch {
      // already closed
    }
  }

  logEnd(socket: WebSocket, code: number | null): void {
    const session = socket.deserializeAttachment() as WatchSession | null;
    logger.info("ws_session", {
      kind: "watch",
      user_id: session?.userId,
      request_id: session?.requestId,
      duration_ms: session ? Date.now() - session.openedAt : undefined,
      close_code: code,
    });
  }
}
