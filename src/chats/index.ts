/** @module The database layer: the only writer of chat execution state. */
export * from "./store";
export { ChatTx, type AppliedTransition, type ChatTxOptions, type LandOptions } from "./chat-tx";
export type { CommittedChat } from "./commit-write";
export type { TailPrefetch } from "./row-lock";
export * from "./errors";
export * from "./notifier";
export * from "./queries";
export * from "./title";
export * from "./summary";
export * from "../wire/chat-wire";
export type { NewMessage } from "./history";
export type { NewQueuedMessage, Promotion } from "./queue";
export { runTransaction, StoreTransaction, type TransactionObserver } from "../db/transaction";
export * from "./transitions/index";
export type {
  ChatMessagePart,
  ChatMessageRole,
  ChatMessageRow,
  ChatQueuedMessageRow,
  ChatRow,
  DynamicToolDefinition,
  RetryState,
} from "../db/schema/chats";
