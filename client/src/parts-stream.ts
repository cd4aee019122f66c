/**
 * `PartsStream`: a chat's `/stream/parts` WebSocket (docs/stream.md), the raw parts of one
 * episode `(history_version, generation_attempt)` chosen with `select()`. The server sends an
 * episode's parts from `seq` 1 on every selection, so after a reconnect (backoff with jitter, the
 * selection sent again) the parts already delivered are skipped: listeners see each seq once, in
 * order. Stops for good on close 4400 (a selection the server refused) and on 401/403/404 before
 * the upgrade.
 */
import type { StreamPart } from "../../src/wire/stream-part";
import { type Backoff, backoffDelay } from "./backoff";
import type { StreamHost } from "./stream-host";
import { ChatdError } from "./errors";
import { finalCloseError, type SocketClose, SocketOpener, type WebSocketFactory, type WebSocketLike } from "./socket-session";

export interface EpisodePart {
  history_version: number;
  generation_attempt: number;
  seq: number;
  part: StreamPart;
}

export interface PartsStreamOptions {
  webSocket?: WebSocketFactory;
  tokenInQuery?: boolean;
  backoff?: Backoff;
}

const CLOSE_INVALID_SELECTION = 4400;

export class PartsStream {
  #socket: WebSocketLike | null = null;
  #open = false;
  #closed = false;
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #selection: { history_version: number; generation_attempt: number } | null = null;
  #lastSeq = 0;
  #error: ChatdError | null = null;
  readonly #parts = new Set<(part: EpisodePart) => void>();
  readonly #fatal = new Set<(error: ChatdError) => void>();
  readonly #sockets: SocketOpener;
  connections = 0;

  constructor(
    readonly client: StreamHost,
    readonly chatId: string,
    readonly options: PartsStreamOptions = {},
  ) {
    this.#sockets = new SocketOpener(options);
    this.#connect();
  }

  get error(): ChatdError | null {
    return this.#error;
  }

  /** The episode to receive; replaces the previous one without reconnecting. */
  select(historyVersion: number, generationAttempt: number): void {
    this.#selection = { history_version: historyVersion, generation_attempt: generationAttempt };
    this.#lastSeq = 0;
    this.#sendSelection();
  }

  onPart(listener: (part: EpisodePart) => void): () => void {
    this.#parts.add(listener);
    return () => this.#parts.delete(listener);
  }

  onFatal(listener: (error: ChatdError) => void): () => void {
    this.#fatal.add(listener);
    return () => this.#fatal.delete(listener);
  }

  close(): void {
    this.#closed = true;
    this.#open = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#socket?.close(1000, "client closed");
    this.#socket = null;
  }

  #sendSelection(): void {
    if (this.#open && this.#selection) (this.#socket as unknown as { send(d: string): void }).send(JSON.stringify(this.#selection));
  }

  #connect(): void {
    if (this.#closed) return;
    const url = this.client.streamUrl(this.chatId, "stream/parts", {}, this.#sockets.tokenInQuery);
    this.connections += 1;
    let opened = false;
    const socket = this.#sockets.open(url, this.client.token);
    this.#socket = socket;
    socket.onopen = () => {
      opened = true;
      this.#open = true;
      this.#sendSelection();
    };
    socket.onmessage = (ev) => {
      if (socket !== this.#socket) return;
      this.#attempt = 0;
      const part = JSON.parse(String(ev.data)) as EpisodePart;
      const sel = this.#selection;
      if (!sel || part.history_version !== sel.history_version || part.generation_attempt !== sel.generation_attempt) return;
      if (part.seq <= this.#lastSeq) return; // re-sent after a reconnect
      this.#lastSeq = part.seq;
      for (const listener of this.#parts) listener(part);
    };
    socket.onerror = () => {};
    socket.onclose = (ev) => {
      if (socket !== this.#socket || this.#closed) return;
      this.#socket = null;
      this.#open = false;
      void this.#afterClose({ code: ev.code, reason: ev.reason, opened });
    };
  }

  async #afterClose(close: SocketClose): Promise<void> {
    const final = await finalCloseError(close, {
      own: (code) =>
        code === CLOSE_INVALID_SELECTION
          ? new ChatdError(400, { code: "validation_failed", message: "The server refused the episode selection.", detail: "close 4400" })
          : null,
      probe: () => this.client.getChat({ chat: this.chatId }),
      fatalStatuses: [401, 403, 404],
    });
    if (final) return this.#fail(final);
    if (this.#closed) return;
    this.#timer = setTimeout(() => this.#connect(), backoffDelay(++this.#attempt, this.options.backoff));
  }

  #fail(error: ChatdError): void {
    this.#closed = true;
    this.#error = error;
    for (const listener of this.#fatal) listener(error);
  }
}
