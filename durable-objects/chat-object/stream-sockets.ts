/**
 * The `GET /chats/{chat}/stream` sockets of one ChatObject: one StreamLoop per socket, fed by the
 * object's notifications (hints) and the sync poll, reading the object's part buffer directly.
 *
 * Sockets are accepted with the hibernation API and keep their loop's cursors in their attachment,
 * so an object that was evicted while idle rebuilds every loop from its socket and catches up with
 * one Sync. Concurrent loops with the same cursors share one database read, but only one that
 * started after the latest hint (a read begun before a notification could predate its commit).
 */
import { versionsFromNotification } from "../../src/chatstate/chat-versions";
import type { ChatUpdatePayload } from "../../src/chats/notifier";
import { errorText, logger } from "../../src/log/log";
import { PacedSends } from "./paced-sends";
import type { CheckedSocket } from "./socket-credentials";
import { logSocketSession, type SocketSession } from "./socket-session";
import type { SyncReadCursors, SyncReader, SyncSnapshot } from "../../src/stream/sync-snapshot";
import type { StreamCursors, SyncHints } from "../../src/stream/sync-state";
import { type EpisodeSource, StreamLoop } from "../../src/stream/stream-loop";

export const STREAM_SOCKET_TAG = "stream";

/** What a stream socket keeps across hibernation (well under the 2 KiB attachment limit). */
interface StreamAttachment {
  kind: "stream";
  chatId: string;
  cursors: StreamCursors;
  session?: SocketSession;
}

export interface StreamSocketsDeps {
  state: DurableObjectState;
  read: SyncReader;
  parts: EpisodeSource;
  sleep(ms: number): Promise<void>;
  /** The object learned its chat from a restored socket. */
  chatSeen(chatId: string): void;
  /** The owner opened or closed a stream of the chat: their read marker moves to its newest message. */
  markRead(chatId: string): void;
}

/** A notification's payload as Sync hints: its versions, every field present (worker_id null compares too). */
export function hintsFromPayload(p: ChatUpdatePayload): SyncHints {
  return versionsFromNotification(p);
}

export class StreamSockets {
  readonly #loops = new Map<WebSocket, StreamLoop>();
  /** Bumped by every hint: a shared read must have started after the latest one. */
  #epoch = 0;
  readonly #reads = new Map<string, Promise<SyncSnapshot | null>>();
  readonly #sends = new PacedSends<WebSocket>();
  /**
   * Each socket's session, as its attachment holds it (set at open and never changed): read once per
   * socket and instance, since deserializing an attachment builds new objects every time.
   */
  readonly #sessions = new WeakMap<WebSocket, SocketSession | undefined>();

  constructor(private readonly deps: StreamSocketsDeps) {}

  /** Open sockets, including hibernated ones whose loop is not in memory yet. */
  get count(): number {
    return this.deps.state.getWebSockets(STREAM_SOCKET_TAG).length;
  }

  /** A new client: accept its socket and start its loop with a bootstrap Sync. */
  open(socket: WebSocket, chatId: string, cursors: StreamCursors, session: SocketSession): void {
    this.deps.state.acceptWebSocket(socket, [STREAM_SOCKET_TAG]);
    socket.serializeAttachment({ kind: "stream", chatId, cursors, session } satisfies StreamAttachment);
    this.#sessions.set(socket, session);
    this.#loopFor(socket, chatId, cursors, session).start();
    this.deps.markRead(chatId);
  }

  /**
   * Sync(hints) on every socket's loop. A loop restored after hibernation catches up with a forced
   * Sync, unless the hints say the chat's turn is over: then its saved cursors decide, as any
   * loop's do (an idle chat's poll after a hibernation fetches nothing when nothing changed).
   */
  hint(hints: SyncHints): void {
    this.#epoch++;
    const turnOver = hints.status === "waiting" || hints.status === "error";
    for (const socket of this.deps.state.getWebSockets(STREAM_SOCKET_TAG)) this.#loop(socket, !turnOver)?.sync(hints);
  }

  /** The chat of the object's streams, from a socket's attachment (how a fresh instance learns it). */
  chatIdFromSockets(): string | undefined {
    for (const socket of this.deps.state.getWebSockets(STREAM_SOCKET_TAG)) {
      const attachment = socket.deserializeAttachment() as StreamAttachment | null;
      if (attachment?.kind !== "stream") continue;
      this.deps.chatSeen(attachment.chatId);
      return attachment.chatId;
    }
    return undefined;
  }

  /** A forced Sync on every socket's loop (the poll found no row: each loop learns the chat is gone). */
  resync(): void {
    this.#epoch++;
    for (const socket of this.deps.state.getWebSockets(STREAM_SOCKET_TAG)) this.#loop(socket, true)?.resync();
  }

  /** Every open stream socket with the session it opened with, hibernated ones included (socket-credentials.ts). */
  checked(): CheckedSocket[] {
    return this.deps.state.getWebSockets(STREAM_SOCKET_TAG).map((socket) => ({
      session: this.#sessionOf(socket),
      close: (code, reason) => {
        // The loop stops at once; the socket closes after the frames already on their way.
        this.#loops.get(socket)?.stop();
        this.#loops.delete(socket);
        try {
          this.#sends.close(socket, code, reason);
        } catch {
          // already closed
        }
      },
    }));
  }

  /** The session of every open stream socket (the socket quotas count them per user). */
  sessions(): (SocketSession | undefined)[] {
    return this.deps.state.getWebSockets(STREAM_SOCKET_TAG).map((socket) => this.#sessionOf(socket));
  }

  #sessionOf(socket: WebSocket): SocketSession | undefined {
    if (this.#sessions.has(socket)) return this.#sessions.get(socket);
    const session = (socket.deserializeAttachment() as StreamAttachment | null)?.session;
    this.#sessions.set(socket, session);
    return session;
  }

  /** The client closed its socket: the loop stops and the close is answered (1005/1006 with 1000). */
  closedByClient(socket: WebSocket, code: number, reason: string): void {
    this.closed(socket, code);
    try {
      socket.close(code === 1005 || code === 1006 ? 1000 : code, reason);
    } catch {
      // already closed
    }
  }

  /** The socket closed or failed: its loop stops. */
  closed(socket: WebSocket, code: number | null): void {
    this.#loops.get(socket)?.stop();
    this.#loops.delete(socket);
    this.#sends.forget(socket);
    const attachment = socket.deserializeAttachment() as StreamAttachment | null;
    if (attachment?.kind !== "stream") return;
    logSocketSession("stream", attachment.chatId, attachment.session, code);
    this.deps.markRead(attachment.chatId);
  }

  /** The loop of a socket, rebuilt from its attachment after hibernation (and resynced when `catchUp`). */
  #loop(socket: WebSocket, catchUp: boolean): StreamLoop | undefined {
    const loop = this.#loops.get(socket);
    if (loop) return loop;
    const attachment = socket.deserializeAttachment() as StreamAttachment | null;
    if (attachment?.kind !== "stream") return undefined;
    this.deps.chatSeen(attachment.chatId);
    const restored = this.#loopFor(socket, attachment.chatId, attachment.cursors, attachment.session);
    if (catchUp) restored.resync();
    return restored;
  }

  #loopFor(socket: WebSocket, chatId: string, cursors: StreamCursors, session: SocketSession | undefined): StreamLoop {
    const loop = new StreamLoop({
      chatId,
      cursors,
      read: (id, c) => this.#sharedRead(id, c),
      parts: this.deps.parts,
      sleep: this.deps.sleep,
      socket: {
        send: (frame) => this.#sends.send(socket, frame),
        close: (code, reason) => this.#sends.close(socket, code, reason),
      },
      saved: (saved) => {
        try {
          socket.serializeAttachment({ kind: "stream", chatId, cursors: saved, session } satisfies StreamAttachment);
        } catch (err) {
          logger.warn("stream_attachment_failed", { chat_id: chatId, error: errorText(err) });
        }
      },
      ended: () => this.#loops.delete(socket),
    });
    this.#loops.set(socket, loop);
    return loop;
  }

  #sharedRead(chatId: string, c: Readonly<SyncReadCursors>): Promise<SyncSnapshot | null> {
    const key = `${this.#epoch}:${c.snapshotVersion}:${c.historyVersion}:${c.queueVersion}:${c.actionRequiredHistoryVersion}`;
    let read = this.#reads.get(key);
    if (!read) {
      read = this.deps.read(chatId, c).finally(() => this.#reads.delete(key));
      this.#reads.set(key, read);
    }
    return read;
  }
}
