/**
 * The stream WebSocket's events (docs/api.md "Stream WebSocket", the spec's "Client-visible stream
 * events"). A frame is a JSON array of them.
 */
import type { ChatStatus } from "../chatstate/states";
import type { ChatMessageWire, ChatQueuedMessageWire } from "./chat-wire";
import type { TitleSource } from "../chatstate/rules";
import type { ChatRow, RetryState } from "../db/schema/chats";
import type { CoderErrorKind } from "./error-kind";
import type { StreamPart } from "./stream-part";

/** The chat's persisted error, as the `error` event carries it. */
export interface StreamErrorPayload {
  message: string;
  detail: string | null;
  /** One of Coder's kinds (./error-kind.ts). */
  kind: CoderErrorKind;
  /** This service's finer classification, e.g. `server`, `network`, `context_overflow`. */
  reason: string;
  provider: string | null;
  retryable: boolean;
  status_code: number | null;
}

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
  | { type: "title_change"; chat_id: string; title: TitleChangePayload }
  | { type: "plan_mode_change"; chat_id: string; plan_mode: boolean }
  | { type: "summary_change"; chat_id: string; summary: SummaryChangePayload }
  | { type: "preview_reset"; chat_id: string }
  | { type: "history_reset"; chat_id: string };

/**
 * A title write. Titles are metadata, outside transitions and the Sync algorithm: the object that
 * wrote one sends this to its open streams at once; clients keep the newest by `title_updated_at`,
 * and a client that reconnects reads the title from the chat row.
 */
export interface TitleChangePayload {
  title: string;
  title_source: TitleSource;
  title_updated_at: string;
}

export function titleChangeEvent(chat: Pick<ChatRow, "id" | "title" | "titleSource" | "titleUpdatedAt">): ChatStreamEvent {
  return {
    type: "title_change",
    chat_id: chat.id,
    title: { title: chat.title, title_source: chat.titleSource, title_updated_at: chat.titleUpdatedAt.toISOString() },
  };
}

/**
 * A summary write (the chat's summary and its turn status label): metadata like a title, sent to
 * open streams when written; clients keep the newest by `summary_updated_at`.
 */
export interface SummaryChangePayload {
  summary: string | null;
  last_turn_summary: string | null;
  summary_updated_at: string | null;
}

export function summaryChangeEvent(chat: Pick<ChatRow, "id" | "summary" | "lastTurnSummary" | "summaryUpdatedAt">): ChatStreamEvent {
  return {
    type: "summary_change",
    chat_id: chat.id,
    summary: {
      summary: chat.summary,
      last_turn_summary: chat.lastTurnSummary,
      summary_updated_at: chat.summaryUpdatedAt === null ? null : chat.summaryUpdatedAt.toISOString(),
    },
  };
}

/**
 * Plan mode switched (docs/plan-mode.md). Metadata like a title: the chat's object, which applies
 * every PATCH of the chat one at a time, sends it to its open streams; a client that reconnects
 * reads `plan_mode` from the chat.
 */
export function planModeChangeEvent(chat: Pick<ChatRow, "id" | "planMode">): ChatStreamEvent {
  return { type: "plan_mode_change", chat_id: chat.id, plan_mode: chat.planMode };
}

export type ChatStreamEventType = ChatStreamEvent["type"];
