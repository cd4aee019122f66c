/** Set by the Worker on requests it forwards to a ChatObject after authorizing them. */
export const CHAT_ID_HEADER = "x-chatd-chat-id";
