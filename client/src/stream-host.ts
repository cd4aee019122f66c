/**
 * What a chat's streams need of the client that opened them: where a chat's socket is, the token
 * to present, and a plain read that tells a lost chat (404) from a lost connection. ChatdClient is
 * the one implementation; the streams name this, not the client, so neither imports the other.
 */
export interface StreamHost {
  readonly token: string | undefined;
  /** The WebSocket URL of a chat's stream or parts stream, with the token in the query when `withToken`. */
  streamUrl(
    chatId: string,
    path: "stream" | "stream/parts",
    query?: Record<string, string | number | undefined>,
    withToken?: boolean,
  ): string;
  /** GET /chats/{chat}: throws ChatdError for a chat that is gone or not the caller's. */
  getChat(input: { chat: string }): Promise<unknown>;
}
