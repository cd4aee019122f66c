/**
 * `ChatStream`: a chat's `/stream` WebSocket kept open. It folds events into a `ChatState`
 * (./chat-state.ts), reconnects by itself with exponential backoff and full jitter, resumes from
 * its cursors (no history refetch), and stops for good, with a `ChatdError`, on what retrying
 * cannot fix: the chat is gone (close 4404, or 404 before the upgrade) or the caller is not
 * authorized (401/403 before the upgrade).
 */
import { type ChatState, type ChatStreamEvent, applyEvent, initialChatState, isStreamClosingEvent, resumeCursors } from "./chat-state";
import type { StreamHost } from "./stream-host";
import { backoffDelay } from "./backoff";
import { ChatdError } from "./errors";
import { finalCloseError, type SocketClose, SocketOpener, type WebSocketFactory, type WebSocketLike } from "./socket-session";

export type { WebSocketFactory, WebSocketLike };

export interface ChatStreamOptions {
  /**
   * How to open sockets. Default: the global `WebSocket` with the token in the query (browsers).
   * In Node: `(url, headers) => new WebSocket(url, { headers })` with the `ws` package.
   */
  webSocket?: WebSocketFactory;
  /**
   * Put the token in the URL's query (default when there is one and no `webSocket` factory). A
   * browser page holding the `coder_session_token` cookie passes false: the cookie goes along.
   */
  tokenInQuery?: boolean;
  /** First reconnect delay (ms, default 250) and the cap (default 10,000): doubled per failure, full jitter. */
  backoff?: { initialMs?: number; maxMs?: number };
}

export type ChatStreamListener = {
  /** Every event, after it was folded into `state`. */
  event: (event: ChatStreamEvent, state: ChatState) => void;
  /** The state changed (one call per frame). */
  state: (state: ChatState) => void;
  open: () => void;
  /** The socket closed; the stream reconnects after `delayMs`. */
  reconnecting: (info: { attempt: number; delayMs: number; code: number }) => void;
  /** Terminal: the stream stopped and will not reconnect. */
  fatal: (error: ChatdError) => void;
};

const CLOSE_CHAT_GONE = 4404;

export class ChatStream {
  #state: ChatState;
  #socket: WebSocketLike | null = null;
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;
  #open = false;
  #error: ChatdError | null = null;
  #serverError: { code: string; message: string } | null = null;
  readonly #listeners: { [K in keyof ChatStreamListener]: Set<ChatStreamListener[K]> } = {
    event: new Set(),
    state: new Set(),
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
    readonly client: StreamHost,
    readonly chatId: string,
    options: ChatStreamOptions = {},
  ) {
    this.#state = initialChatState(chatId);
    this.#sockets = new SocketOpener(options);
    this.#initialMs = options.backoff?.initialMs ?? 250;
    this.#maxMs = options.backoff?.maxMs ?? 10_000;
    this.#connect();
  }

  get state(): ChatState {
    return this.#state;
  }

  /** Set once the stream stopped for good (see `fatal`). */
  get error(): ChatdError | null {
    return this.#error;
  }

  /** The socket is open (false while reconnecting). */
  get connected(): boolean {
    return this.#open;
  }

  on<K extends keyof ChatStreamListener>(type: K, listener: ChatStreamListener[K]): () => void {
    this.#listeners[type].add(listener);
    return () => this.#listeners[type].delete(listener);
  }

  /** Resolves when `predicate(state)` holds; rejects when the stream stops for good first. */
  until(predicate: (state: ChatState) => boolean): Promise<ChatState> {
    if (predicate(this.#state)) return Promise.resolve(this.#state);
    if (this.#error) return Promise.reject(this.#error);
    return new Promise((resolve, reject) => {
      const offState = this.on("state", (s) => {
        if (!predicate(s)) return;
        offState();
        offFatal();
        resolve(s);
      });
      const offFatal = this.on("fatal", (e) => {
        offState();
        offFatal();
        reject(e);
      });
    });
  }

  close(): void {
    this.#closed = true;
    this.#open = false;
    if (this.#timer) clearTimeout(this.#timer);
    const socket = this.#socket;
    this.#socket = null;
    socket?.close(1000, "client closed");
  }

  #connect(): void {
    if (this.#closed) return;
    const cursors = resumeCursors(this.#state);
    const query = this.connections === 0 ? {} : { ...cursors };
    const url = this.client.streamUrl(this.chatId, "stream", query, this.#sockets.tokenInQuery);
    this.connections += 1;
    this.#serverError = null;
    let opened = false;
    const socket = this.#sockets.open(url, this.client.token);
    this.#socket = socket;
    socket.onopen = () => {
      opened = true;
      this.#open = true;
      this.#emit("open");
    };
    socket.onmessage = (ev) => {
      if (socket !== this.#socket) return;
      this.#attempt = 0; // a frame arrived: the connection is healthy again
      this.#onFrame(String(ev.data));
    };
    socket.onerror = () => {
      // onclose follows and decides.
    };
    socket.onclose = (ev) => {
      if (socket !== this.#socket || this.#closed) return;
      this.#socket = null;
      this.#open = false;
      void this.#afterClose({ code: ev.code, reason: ev.reason, opened });
    };
  }

  #onFrame(data: string): void {
    let frame: unknown;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    if (!Array.isArray(frame)) return;
    let state = this.#state;
    for (const event of frame as ChatStreamEvent[]) {
      // The reason for the close that follows (applyEvent leaves the state alone).
      if (isStreamClosingEvent(event)) this.#serverError = event.error;
      state = applyEvent(state, event);
      this.#state = state;
      this.#emit("event", event, state);
    }
    this.#emit("state", state);
  }

  async #afterClose(close: SocketClose): Promise<void> {
    const final = await finalCloseError(close, {
      own: (code) =>
        code === CLOSE_CHAT_GONE
          ? new ChatdError(404, { code: "not_found", message: this.#serverError?.message ?? "The chat is gone.", detail: "close 4404" })
          : null,
      probe: () => this.client.getChat({ chat: this.chatId }),
      fatalStatuses: [401, 403, 404],
    });
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

  #emit<K extends keyof ChatStreamListener>(type: K, ...args: Parameters<ChatStreamListener[K]>): void {
    for (const listener of this.#listeners[type]) (listener as (...a: unknown[]) => void)(...args);
  }
}
