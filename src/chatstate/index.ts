/** @module The pure chat state machine: states, the transition table, classification and rules. No I/O. */
export * from "./states";
export * from "./classify";
export * from "./chat-versions";
export * from "./transitions";
export * from "./errors";
export * from "./rules";
export * from "./landing";
