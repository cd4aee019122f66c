/**
 * `ChatWatch`: the user's `/chats/watch` WebSocket kept open (docs/api.md "Chat list watch"). Each
 * frame is one `{kind, chat}` event about a chat the user can list (`action_required` adds the
 * pending client `tool_calls`). It reconnects by itself with exponential backoff and full jitter,
 * and emits `open` on every connection: events sent while it
 * was away are not replayed, so a list that follows it reads the list again then (`watchedList`
 * below folds events into one). It stops for good, with a `ChatdError`, when the credential lapses
 * (close 4401) or the upgrade is refused for a reason retrying cannot fix (401, 403).
 */
import type { ChatWatchEvent, ChatWatchEventKind } from "../../src/watch/watch-events";
import { backoffDelay } from "./backoff";
import type { ChatdError } from "./errors";
import { finalCloseError, type SocketClose, SocketOpener, type WebSocketFactory, type WebSocketLike } from "./socket-session";
import type { Chat } from "./schemas";

export type { ChatWatchEvent, ChatWatchEventKind };

export interface ChatWatchHost {
  readonly token: string | undefined;
  /** The watch's WebSocket URL, with the token in the query when `withToken`. */
  watchUrl(withToken?: boolean): string;
  /** A plain authenticated read, to learn why an upgrade was refused (a browser cannot see it). */
  me(): Promise<unknown>;
}

export interface ChatWatchOptions {
  /** How to open sockets (as ChatStreamOptions.webSocket). */
  webSocket?: WebSocketFactory;
  /** Put the token in the query (default without a `webSocket` factory); a cookie-holding page passes false. */
  tokenInQuery?: boolean;
  /** First reconnect delay (ms, default 500) and the cap (default 15,000). */
  backoff?: { initialMs?: number; maxMs?: number };
}

export type ChatWatchListener = {
  event: (event: ChatWatchEvent) => void;
  /** A connection opened: read the list again, events from before it are not replayed. */
  open: () => void;
  reconnecting: (info: { attempt: number; delayMs: number; code: number }) => void;
  fatal: (error: ChatdError) => void;
};

export class ChatWatch {
  #socket: WebSocketLike | null = null;
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;
  #error: ChatdError | null = null;
  readonly #listeners: { [K in keyof ChatWatchListener]: Set<ChatWatchListener[K]> } = {
    event: new Set(),
    open: new Set(),
    reconnecting: new Set(),
    fatal: new Set(),
  };
  readonly #sockets: SocketOpener;
  readonly #initialMs: number;
  readonly #maxMs: number;
  /** Sockets opened, for tests and diagnostics. */
  connections = 0;

  constructor(
    readonly client: ChatWatchHost,
    options: ChatWatchOptions = {},
  ) {
    this.#sockets = new SocketOpener(options);
    this.#initialMs = options.backoff?.initialMs ?? 500;
    this.#maxMs = options.backoff?.maxMs ?? 15_000;
    queueMicrotask(() => this.#connect());
  }

  get error(): ChatdError | null {
    return this.#error;
  }

  on<K extends keyof ChatWatchListener>(type: K, listener: ChatWatchListener[K]): () => void {
    this.#listeners[type].add(listener);
    return () => this.#listeners[type].delete(listener);
  }

  /** Resolves with the first event `predicate` accepts; rejects when the watch stops for good first. */
  next(predicate: (event: ChatWatchEvent) => boolean): Promise<ChatWatchEvent> {
    if (this.#error) return Promise.reject(this.#error);
    return new Promise((resolve, reject) => {
      const offEvent = this.on("event", (e) => {
        if (!predicate(e)) return;
        offEvent();
        offFatal();
        resolve(e);
      });
      const offFatal = this.on("fatal", (err) => {
        offEvent();
        offFatal();
        reject(err);
      });
    });
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    const socket = this.#socket;
    this.#socket = null;
    socket?.close(1000, "client closed");
  }

  #connect(): void {
    if (this.#closed) return;
    const url = this.client.watchUrl(this.#sockets.tokenInQuery);
    this.connections += 1;
    let opened = false;
    const socket = this.#sockets.open(url, this.client.token);
    this.#socket = socket;
    socket.onopen = () => {
      opened = true;
      this.#attempt = 0;
      this.#emit("open");
    };
    socket.onmessage = (ev) => {
      if (socket !== this.#socket) return;
      let event: ChatWatchEvent;
      try {
        event = JSON.parse(String(ev.data)) as ChatWatchEvent;
      } catch {
        return;
      }
      if (typeof event?.kind === "string" && event.chat) this.#emit("event", event);
    };
    socket.onerror = () => {
      // onclose follows and decides.
    };
    socket.onclose = (ev) => {
      if (socket !== this.#socket || this.#closed) return;
      this.#socket = null;
      void this.#afterClose({ code: ev.code, reason: ev.reason, opened });
    };
  }

  async #afterClose(close: SocketClose): Promise<void> {
    const final = await finalCloseError(close, { probe: () => this.client.me(), fatalStatuses: [401, 403] });
    if (final) return this.#fail(final);
    if (this.#closed) return;
    const { code } = close;
    const attempt = ++this.#attempt;
    const delayMs = backoffDelay(attempt, { initialMs: this.#initialMs, maxMs: this.#maxMs });
    this.#emit("reconnecting", { attempt, delayMs, code });
    this.#timer = setTimeout(() => this.#connect(), delayMs);
  }

  #fail(error: ChatdError): void {
    this.#closed = true;
    this.#error = error;
    this.#emit("fatal", error);
  }

  #emit<K extends keyof ChatWatchListener>(type: K, ...args: Parameters<ChatWatchListener[K]>): void {
    for (const listener of this.#listeners[type]) (listener as (...a: unknown[]) => void)(...args);
  }
}

/**
 * A chat list with one watch event folded in: `created` and the changes replace or add the chat,
 * `deleted` removes it, unless `archived` lists archived chats, where archiving adds it and
 * unarchiving (`created` of an unarchived chat) removes it; a chat that is `gone` leaves both.
 * Newest first.
 */
export function applyWatchEvent(list: readonly Chat[], event: ChatWatchEvent, { archived = false } = {}): Chat[] {
  const chat = event.chat as Chat;
  const rest = list.filter((c) => c.id !== chat.id);
  const belongs = event.gone !== true && chat.archived === archived;
  if (!belongs) return rest.length === list.length ? [...list] : rest;
  const next = [...rest, chat];
  return next.sort((a, b) => (a.created_at === b.created_at ? b.id.localeCompare(a.id) : b.created_at.localeCompare(a.created_at)));
}
