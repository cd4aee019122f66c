import type { Context } from "hono";
import type { ChatObject } from "../../durable-objects/chat-object";
import type { AppEnv } from "./app-env";

/** The chat commands of a ChatObject, as the routes call them. */
export type ChatObjectCommands = Pick<
  ChatObject,
  | "create"
  | "sendMessage"
  | "editMessage"
  | "deleteQueued"
  | "promoteQueued"
  | "interrupt"
  | "submitToolResults"
  | "compact"
  | "clear"
  | "reconcile"
  | "update"
>;

/**
 * The Durable Object that owns a chat: every mutation of the chat goes through it. Typed with the
 * class's own signatures: the RPC stub types turn results that hold `unknown` (tool arguments)
 * into `never`, though they are plain JSON data that structured clone carries unchanged.
 */
export function chatObject(c: Context<AppEnv>, chatId: string): ChatObjectCommands {
  return c.env.CHAT_OBJECT.get(c.env.CHAT_OBJECT.idFromName(chatId)) as unknown as ChatObjectCommands;
}
