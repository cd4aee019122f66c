/** What the Worker tells a user's watch object about an upgrade it authenticated (src/routes/chat-watch.ts). */
export const WATCH_USER_HEADER = "X-Chatd-Watch-User";
export const WATCH_KEY_HEADER = "X-Chatd-Watch-Key";
