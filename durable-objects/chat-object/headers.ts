/** Set by the Worker on the WebSocket upgrades it forwards to a ChatObject (never the client's own). */
export const CHAT_ID_HEADER = "x-chatd-chat-id";

/** The stream's starting cursors (JSON of StreamCursors), validated by the route. */
export const STREAM_CURSORS_HEADER = "x-chatd-stream-cursors";

/** The token the client presented, which the object authenticates (docs/hot-path.md). */
export const CREDENTIALS_HEADER = "x-chatd-credentials";
