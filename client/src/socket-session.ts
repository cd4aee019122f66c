/**
 * What the SDK's three kept-open sockets (`ChatStream`, `PartsStream`, `ChatWatch`) share: how a
 * socket is opened and authenticated, and which closes end a stream for good (`finalCloseError`):
 * its credential lapsed (close 4401), a close code of the stream's own, or an upgrade refused for
 * a reason retrying cannot fix, which a browser cannot see and a plain authenticated read tells.
 */
import { ChatdError } from "./errors";

/** The part of the WebSocket API the streams use: the browser's and `ws`'s both have it. */
export interface WebSocketLike {
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  close(code?: number, reason?: string): void;
}

/** Opens a socket. `headers` carries the token for clients that can set headers (Node's `ws`). */
export type WebSocketFactory = (url: string, headers: Record<string, string>) => WebSocketLike;

/** The credential the socket opened with no longer holds (revoked, expired, suspended, left the organization). */
const CLOSE_CREDENTIAL_LAPSED = 4401;

/** How a stream opens its sockets and where its token goes. */
export class SocketOpener {
  readonly #factory: WebSocketFactory;
  readonly #headerAuth: boolean;
  /** Whether the token goes in the URL's query (the stream builds its URL with it). */
  readonly tokenInQuery: boolean;

  /**
   * A `webSocket` factory (Node's `ws`) gets the token in a header; without one the global
   * `WebSocket` gets it in the query, unless `tokenInQuery: false` (a page holding the session cookie).
   */
  constructor(options: { webSocket?: WebSocketFactory | undefined; tokenInQuery?: boolean | undefined }) {
    this.#headerAuth = options.webSocket !== undefined;
    this.tokenInQuery = options.tokenInQuery ?? !this.#headerAuth;
    this.#factory = options.webSocket ?? ((url) => new (globalThis.WebSocket as unknown as new (u: string) => WebSocketLike)(url));
  }

  open(url: string, token: string | undefined): WebSocketLike {
    return this.#factory(url, this.#headerAuth && token ? { authorization: `Bearer ${token}` } : {});
  }
}

/** A socket's close, as the stream that owned it saw it. */
export interface SocketClose {
  code: number;
  reason: string;
  /** Whether the upgrade succeeded: a refused one closes without ever opening. */
  opened: boolean;
}

/** What a stream knows of its own socket that decides whether a close is final. */
export interface FinalCloses {
  /** The stream's own close codes that retrying cannot fix (4404: the chat is gone), as errors. */
  own?: (code: number) => ChatdError | null;
  /** A plain authenticated read of what the socket is about, asked when an upgrade never opened. */
  probe: () => Promise<unknown>;
  /** The probe's statuses that mean the upgrade was refused for good. */
  fatalStatuses: readonly number[];
}

/**
 * Whether a close ends the stream for good, and with what error: the credential lapsed (4401,
 * reconnecting with it cannot help), one of the stream's own final codes, or an upgrade refused
 * for a reason the probe tells. null: reconnect.
 */
export async function finalCloseError(close: SocketClose, closes: FinalCloses): Promise<ChatdError | null> {
  if (close.code === CLOSE_CREDENTIAL_LAPSED) return credentialLapsedError(close.reason);
  const own = closes.own?.(close.code);
  if (own) return own;
  return close.opened ? null : refusedForGood(closes.probe, closes.fatalStatuses);
}

/** The error a 4401 close stops a stream with: reconnecting with the same credential cannot help. */
function credentialLapsedError(reason: string): ChatdError {
  return new ChatdError(401, { code: "unauthorized", message: reason || "The credential no longer holds.", detail: "close 4401" });
}

/**
 * Why an upgrade that never opened was refused, when retrying cannot fix it: `probe` is a plain
 * authenticated read of what the socket is about, and a ChatdError with one of `fatalStatuses`
 * from it is the answer. Anything else (it succeeded, the network failed) means try again: null.
 */
async function refusedForGood(probe: () => Promise<unknown>, fatalStatuses: readonly number[]): Promise<ChatdError | null> {
  try {
    await probe();
  } catch (err) {
    if (err instanceof ChatdError && fatalStatuses.includes(err.status)) return err;
  }
  return null;
}
