/**
 * The chat routes Coder's clients call, as they call them, at CODER_COMMIT: method, path, and the
 * status each requires. `codersdk/chats.go` compares the status exactly (anything else goes to
 * ReadBodyAsError and the call fails), so its routes name one status. The queue routes are called
 * only by the web UI (axios), which takes any 2xx and does not read the body.
 */
import type { z } from "zod";
import * as S from "./coder-shapes";

export interface CoderRoute {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** With `{name}` placeholders. */
  path: string;
  /** The status the client requires; "2xx" for axios, which takes any. */
  status: number | "2xx";
  /** What the client decodes the body into; none when it reads no body. */
  body?: z.ZodType;
  /** Which of Coder's clients calls it so. */
  caller: string;
}

export const CODER_ROUTES = {
  listChats: { method: "GET", path: "/api/v2/chats", status: 200, body: S.Chat.array(), caller: "codersdk ListChats, UI getChats" },
  createChat: { method: "POST", path: "/api/v2/chats", status: 201, body: S.Chat, caller: "codersdk CreateChat" },
  getChat: { method: "GET", path: "/api/v2/chats/{chat}", status: 200, body: S.Chat, caller: "codersdk GetChat" },
  updateChat: { method: "PATCH", path: "/api/v2/chats/{chat}", status: 204, caller: "codersdk UpdateChat" },
  getMessages: {
    method: "GET",
    path: "/api/v2/chats/{chat}/messages",
    status: 200,
    body: S.ChatMessagesResponse,
    caller: "codersdk GetChatMessages",
  },
  sendMessage: {
    method: "POST",
    path: "/api/v2/chats/{chat}/messages",
    status: 200,
    body: S.CreateChatMessageResponse,
    caller: "codersdk CreateChatMessage",
  },
  editMessage: {
    method: "PATCH",
    path: "/api/v2/chats/{chat}/messages/{message}",
    status: 200,
    body: S.EditChatMessageResponse,
    caller: "codersdk EditChatMessage",
  },
  interrupt: { method: "POST", path: "/api/v2/chats/{chat}/interrupt", status: 200, body: S.Chat, caller: "codersdk InterruptChat" },
  compact: { method: "POST", path: "/api/v2/chats/{chat}/compact", status: 200, body: S.Chat, caller: "codersdk CompactChat" },
  clear: { method: "POST", path: "/api/v2/chats/{chat}/clear", status: 200, body: S.Chat, caller: "codersdk ClearChat" },
  reconcileInvalid: {
    method: "POST",
    path: "/api/v2/chats/{chat}/reconcile-invalid",
    status: 200,
    body: S.Chat,
    caller: "codersdk ReconcileInvalidChatState",
  },
  toolResults: { method: "POST", path: "/api/v2/chats/{chat}/tool-results", status: 204, caller: "codersdk SubmitToolResults" },
  prompts: {
    method: "GET",
    path: "/api/v2/chats/{chat}/prompts",
    status: 200,
    body: S.ChatPromptsResponse,
    caller: "codersdk GetChatPrompts",
  },
  cost: { method: "GET", path: "/api/v2/chats/{chat}/cost", status: 200, body: S.ChatCost, caller: "codersdk GetChatCost" },
  models: {
    method: "GET",
    path: "/api/v2/organizations/{organization}/chats/models",
    status: 200,
    body: S.OrganizationChatModelsResponse,
    caller: "codersdk ChatModels",
  },
  deleteQueued: { method: "DELETE", path: "/api/v2/chats/{chat}/queue/{queued}", status: "2xx", caller: "UI deleteChatQueuedMessage" },
  promoteQueued: {
    method: "POST",
    path: "/api/v2/chats/{chat}/queue/{queued}/promote",
    status: "2xx",
    caller: "UI promoteChatQueuedMessage",
  },
} as const satisfies Record<string, CoderRoute>;

export type CoderRouteName = keyof typeof CODER_ROUTES;

/** The two WebSockets: `/stream` frames are arrays of events, `/watch` frames one event each. */
export const CODER_SOCKETS = {
  stream: { path: "/api/v2/chats/{chat}/stream", frame: S.ChatStreamFrame, caller: "codersdk StreamChat, UI chat stream" },
  watch: { path: "/api/v2/chats/watch", frame: S.ChatWatchEvent, caller: "codersdk WatchChats, UI watchChats" },
} as const;
