export * from "./auth";
export * from "./models";
export * from "./chats";
export * from "./files";
export * from "./compaction";
export * from "./projects";
export * from "./mcp";
export * from "./subagents";
