export * from "./configs";
export * from "./errors";
export * from "./options";
export * from "./providers";
export * from "./resolve";
export * from "./turn-model-rows";
