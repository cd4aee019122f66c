/**
 * `@chatd-edge/client`: the typed SDK of the chatd-edge API (docs/client.md).
 */
export { ChatdClient, type ChatdClientOptions, type OperationInput, type OperationOutput, text } from "./client";
export { ChatdError, type ErrorBody, type Validation } from "./errors";
export { ChatStream, type ChatStreamListener, type ChatStreamOptions, type WebSocketFactory, type WebSocketLike } from "./chat-stream";
export * from "./chat-state";
export {
  applyWatchEvent,
  ChatWatch,
  type ChatWatchEvent,
  type ChatWatchEventKind,
  type ChatWatchListener,
  type ChatWatchOptions,
} from "./chat-watch";
export { type EpisodePart, PartsStream, type PartsStreamOptions } from "./parts-stream";
export { type Operation, type OperationName, type Operations, operations } from "./operations";
export type * from "./schemas";
