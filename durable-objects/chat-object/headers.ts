/** Set by the Worker on requests it forwards to a ChatObject after authorizing them. */
export const CHAT_ID_HEADER = "x-chatd-chat-id";

/** The stream's starting cursors (JSON of StreamCursors), validated by the route. */
export const STREAM_CURSORS_HEADER = "x-chatd-stream-cursors";

/** The authenticated caller's user id, for the object's WebSocket session log line. */
export const CALLER_ID_HEADER = "x-chatd-caller-id";
