import type { Context } from "hono";
import type { ChatObject } from "../../durable-objects/chat-object";
import { type ChatCommandName, isChatCommand } from "../chat-object/commands";
import { currentRequestId } from "../observability/request-context";
import type { AppEnv } from "./app-env";

/** The chat commands of a ChatObject, as the routes call them. */
export type ChatObjectCommands = Pick<ChatObject, ChatCommandName>;

/**
 * The Durable Object that owns a chat: every mutation of the chat goes through it. Each call
 * becomes the object's `command` RPC with the current request's id, so the object's log lines for
 * it carry the same `request_id` as the Worker's. Typed with the class's own signatures: the RPC
 * stub types turn results that hold `unknown` (tool arguments) into `never`, though they are
 * plain JSON data that structured clone carries unchanged.
 */
export function chatObject(c: Context<AppEnv>, chatId: string): ChatObjectCommands {
  const stub = c.env.CHAT_OBJECT.get(c.env.CHAT_OBJECT.idFromName(chatId)) as unknown as Pick<ChatObject, "command">;
  const requestId = currentRequestId() ?? crypto.randomUUID();
  return new Proxy({} as ChatObjectCommands, {
    get: (_target, name) =>
      typeof name === "string" && isChatCommand(name) ? (...args: unknown[]) => stub.command(requestId, name, args as never) : undefined,
  });
}
