/**
 * The chat commands a ChatObject serves to the Worker's routes. The routes call them through
 * `command(requestId, name, args)` so the object runs each inside the request's context (its log
 * lines carry the request's id); this list is what that entry point accepts.
 */
export const CHAT_COMMANDS = [
  "create",
  "sendMessage",
  "editMessage",
  "deleteQueued",
  "promoteQueued",
  "interrupt",
  "submitToolResults",
  "compact",
  "clear",
  "reconcile",
  "update",
  "turns",
] as const;

export type ChatCommandName = (typeof CHAT_COMMANDS)[number];

export function isChatCommand(name: string): name is ChatCommandName {
  return (CHAT_COMMANDS as readonly string[]).includes(name);
}
