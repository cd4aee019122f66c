export * from "./auth";
export * from "./models";
export * from "./chats";
export * from "./files";
export * from "./projects";
