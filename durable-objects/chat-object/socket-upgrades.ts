/**
 * The WebSocket upgrades a ChatObject answers. The Worker forwards each with the chat id and the
 * presented token in headers it sets; the object authenticates the token and checks the chat is
 * the caller's (a 401 or 404 as the Worker would answer it), then opens the socket: a stream socket
 * (hibernatable, its loop's cursors in its attachment) or a parts socket (in memory, as the part
 * buffer it reads). While any is open, their keys are rechecked (socket-credentials.ts).
 */
import { currentRequestId, REQUEST_ID_HEADER, requestIdFrom, runInRequest } from "../../src/log/request-context";
import type { PartBuffer } from "../../src/part-buffer/part-buffer";
import { parseCursorsHeader } from "../../src/stream/resume-cursors";
import type { StreamPart } from "../../src/wire/stream-part";
import type { AlarmClock } from "./alarm-clock";
import type { ObjectCadence } from "./object-cadence";
import { authorizeSocket } from "./authorize-socket";
import { errorValue } from "../../src/chat-commands/error-value";
import { apiErrorOf, errorBody } from "../../src/http/errors";
import { QuotaExceededError } from "../../src/limits/errors";
import type { ChatRuntime } from "./chat-runtime";
import { CHAT_ID_HEADER, CREDENTIALS_HEADER, STREAM_CURSORS_HEADER } from "./headers";
import type { ObjectChatId } from "./object-chat-id";
import { lapsedCredentials } from "../../src/accounts/lapsed-credentials";
import { PartsSession } from "./parts-socket";
import { type CheckedSocket, SocketCredentials } from "./socket-credentials";
import { logSocketSession, type SocketSession, socketSession } from "./socket-session";
import type { StreamSockets } from "./stream-sockets";
import type { SyncPoller } from "./sync-poller";

export interface SocketUpgradeParts {
  chatId: ObjectChatId;
  runtime: ChatRuntime;
  streams: StreamSockets;
  poller: SyncPoller;
  clock: AlarmClock;
  parts: PartBuffer<StreamPart>;
  /** A socket opening is a sign of life (object-cadence.ts), and the check's cadence follows the chat's. */
  cadence: ObjectCadence;
}

export class SocketUpgrades {
  /** The open parts sockets and their sessions (stream sockets are the hibernation API's). */
  readonly #parts = new Map<WebSocket, SocketSession>();
  readonly #credentials: SocketCredentials;

  constructor(private readonly deps: SocketUpgradeParts) {
    this.#credentials = new SocketCredentials({
      sockets: () => [...deps.streams.checked(), ...this.#partsChecked()],
      openCount: () => deps.streams.count + this.#parts.size,
      chatId: () => deps.chatId.value,
      lapsed: (chatId, keyIds) => lapsedCredentials(deps.runtime.db(), chatId, keyIds, new Date()),
      intervalMs: () => deps.runtime.config().CHAT_AUTH_CACHE_MS,
      now: Date.now,
      cadence: deps.cadence,
    });
    deps.clock.watch(() => this.#credentials.dueAt());
  }

  /** The alarm fired at `now`: the sockets' credentials are rechecked when due, or `anyway` (after `after`). */
  checkCredentialsIfDue(now: number, anyway = false, after?: Promise<unknown>): Promise<void> | undefined {
    return this.#credentials.checkIfDue(now, anyway, after);
  }

  credentialsDue(now: number): boolean {
    return this.#credentials.isDue(now);
  }

  answer(request: Request): Promise<Response> {
    return runInRequest(requestIdFrom(request.headers.get(REQUEST_ID_HEADER)), async () => {
      const chatId = request.headers.get(CHAT_ID_HEADER);
      if (!chatId || request.headers.get("Upgrade")?.toLowerCase() !== "websocket")
        return new Response("expected a WebSocket upgrade", { status: 426 });
      this.deps.cadence.touched();
      const caller = await authorizeSocket(this.deps.runtime, chatId, request.headers.get(CREDENTIALS_HEADER) ?? undefined);
      if (caller instanceof Response) return caller;
      const full = this.#overQuota(caller.userId);
      if (full) return Response.json(errorBody(apiErrorOf(errorValue(full))), { status: 403 });
      this.deps.chatId.seen(chatId);
      const session = socketSession(currentRequestId() ?? crypto.randomUUID(), caller);
      const pair = new WebSocketPair();
      if (new URL(request.url).pathname.endsWith("/parts")) this.#openParts(pair[1], chatId, session);
      else this.#openStream(pair[1], chatId, request, session);
      return new Response(null, { status: 101, webSocket: pair[0] });
    });
  }

  /**
   * The socket quotas (docs/fairness.md): the chat's open sockets, and the caller's among them.
   * Counted from the sockets themselves, so a socket that closed, hibernated or not, frees its place.
   */
  #overQuota(userId: string): QuotaExceededError | null {
    const config = this.deps.runtime.config();
    // Counted without listing the sockets: opening N sockets must not cost N² attachment reads.
    if (this.deps.streams.count + this.#parts.size >= config.CHAT_MAX_SOCKETS_PER_CHAT) {
      return new QuotaExceededError("sockets_per_chat", config.CHAT_MAX_SOCKETS_PER_CHAT, "The chat has as many sockets open as it may.");
    }
    let own = 0;
    for (const session of this.deps.streams.sessions()) if (session?.userId === userId) own++;
    for (const session of this.#parts.values()) if (session.userId === userId) own++;
    if (own >= config.CHAT_MAX_SOCKETS_PER_USER_PER_CHAT) {
      return new QuotaExceededError(
        "sockets_per_user",
        config.CHAT_MAX_SOCKETS_PER_USER_PER_CHAT,
        "You have as many sockets open on this chat as you may.",
      );
    }
    return null;
  }

  #openStream(server: WebSocket, chatId: string, request: Request, session: SocketSession): void {
    const { streams, poller, clock } = this.deps;
    streams.open(server, chatId, parseCursorsHeader(request.headers.get(STREAM_CURSORS_HEADER)), session);
    poller.streamOpened();
    clock.arm();
  }

  #partsChecked(): CheckedSocket[] {
    return [...this.#parts].map(([socket, session]) => ({ session, close: (code, reason) => socket.close(code, reason) }));
  }

  /** Not hibernated: a parts subscription lives in this object's memory, as the part buffer does. */
  #openParts(server: WebSocket, chatId: string, session: SocketSession): void {
    server.accept();
    this.#parts.set(server, session);
    this.deps.clock.arm();
    const parts = new PartsSession(chatId, this.deps.parts, {
      send: (t) => server.send(t),
      close: (code, reason) => server.close(code, reason),
    });
    server.addEventListener("message", (event) =>
      parts.onMessage(typeof event.data === "string" ? event.data : new TextDecoder().decode(event.data)),
    );
    server.addEventListener("close", (event) => {
      this.#parts.delete(server);
      parts.stop();
      logSocketSession("parts", chatId, session, event.code);
    });
    server.addEventListener("error", () => {
      this.#parts.delete(server);
      parts.stop();
      logSocketSession("parts", chatId, session, null);
    });
  }
}
