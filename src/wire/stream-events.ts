/**
 * The stream WebSocket's events (docs/api.md "Stream WebSocket", the spec's "Client-visible stream
 * events"), the spec's nine and no others. A frame is a JSON array of them. Titles, summaries and
 * plan mode are not among them: the chat list watch carries those (src/watch/watch-events.ts).
 */
import type { ChatStatus } from "../chatstate/states";
import type { ChatMessageWire, ChatQueuedMessageWire } from "./chat-wire";
import type { RetryState } from "../db/schema/chats";
import type { ChatErrorWire } from "./chat-error";
import type { StreamPart } from "./stream-part";

/** The chat's persisted error, as the `error` event carries it: the chat's `last_error`. */
export type StreamErrorPayload = ChatErrorWire;

/**
 * Why the server is closing the stream (1011 or 4404), sent as the last frame before the close: an
 * `error` event like the chat's own, so that every frame is an array of events and Coder's clients
 * show the message. `code` tells it apart from the chat's persisted error: the chat's status did
 * not change, and a client keeps the error it held.
 */
export interface StreamClosingError extends StreamErrorPayload {
  code: "internal" | "not_found";
}

export function streamClosingEvent(chatId: string, code: StreamClosingError["code"], message: string): ChatStreamEvent {
  const error: StreamClosingError = {
    code,
    message,
    detail: null,
    kind: "generic",
    reason: code,
    provider: null,
    // Reconnecting resumes after an internal failure; a deleted chat stays deleted.
    retryable: code === "internal",
    status_code: null,
  };
  return { type: "error", chat_id: chatId, error };
}

/**
 * A client tool call the chat waits on. `args` is the call's arguments as a JSON string, as
 * Coder's `ChatStreamToolCall` carries them (a client parses it with the tool's own schema).
 */
export interface PendingToolCall {
  tool_call_id: string;
  tool_name: string;
  args: string;
}

export interface MessagePartPayload {
  role: "assistant";
  part: StreamPart;
  history_version: number;
  generation_attempt: number;
  seq: number;
}

export type ChatStreamEvent =
  | { type: "message"; chat_id: string; message: ChatMessageWire }
  | { type: "message_part"; chat_id: string; message_part: MessagePartPayload }
  | { type: "status"; chat_id: string; status: { status: ChatStatus } }
  | { type: "error"; chat_id: string; error: StreamErrorPayload }
  | { type: "retry"; chat_id: string; retry: RetryState }
  | { type: "queue_update"; chat_id: string; queued_messages: ChatQueuedMessageWire[] }
  | { type: "action_required"; chat_id: string; action_required: { tool_calls: PendingToolCall[] } }
  | { type: "preview_reset"; chat_id: string }
  | { type: "history_reset"; chat_id: string };

export type ChatStreamEventType = ChatStreamEvent["type"];
