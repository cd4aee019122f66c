/** One function per transition of the spec, each applied inside `ChatStore.update` on a ChatTx. */
export * from "./create";
export * from "./set-archived";
export * from "./send-message";
export * from "./edit-message";
export * from "./queued-messages";
export * from "./interrupt";
export * from "./requires-action";
export * from "./request-compaction";
export * from "./clear-context";
export * from "./ownership";
export * from "./commit-step";
export * from "./finish-interruption";
export * from "./generation-attempts";
export * from "./finish-turn";
export * from "./finish-error";
export * from "./reconcile-invalid-state";
