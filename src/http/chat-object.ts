import type { Context } from "hono";
import type { ChatObject } from "../../durable-objects/chat-object";
import type { Outcome } from "../chat-commands/outcome";
import { type ChatCommandName, isChatCommand } from "../chat-object/commands";
import { currentRequestId } from "../observability/request-context";
import type { AppEnv } from "./app-env";
import { apiErrorOf } from "./errors";

type ValueOf<R> = Awaited<R> extends Outcome<infer T> ? T : never;

/** The chat commands of a ChatObject, as the routes call them: the command's value, or its error thrown as the API's answer. */
export type ChatObjectCommands = {
  [K in ChatCommandName]: (...args: Parameters<ChatObject[K]>) => Promise<ValueOf<ReturnType<ChatObject[K]>>>;
};

/**
 * The Durable Object that owns a chat: every mutation of the chat goes through it. Each call
 * becomes the object's `command` RPC with the current request's id, so the object's log lines for
 * it carry the same `request_id` as the Worker's. Typed with the class's own signatures: the RPC
 * stub types turn results that hold `unknown` (tool arguments) into `never`, though they are
 * plain JSON data that structured clone carries unchanged. A command's error comes back as a value
 * and is mapped to its answer here, with the Worker's one mapping.
 */
export function chatObject(c: Context<AppEnv>, chatId: string): ChatObjectCommands {
  const stub = c.env.CHAT_OBJECT.get(c.env.CHAT_OBJECT.idFromName(chatId)) as unknown as Pick<ChatObject, "command">;
  const requestId = currentRequestId() ?? crypto.randomUUID();
  return new Proxy({} as ChatObjectCommands, {
    get: (_target, name) =>
      typeof name === "string" && isChatCommand(name)
        ? async (...args: unknown[]) => {
            const result = (await stub.command(requestId, name, args as never)) as Outcome<unknown>;
            if (result.ok) return result.value;
            throw apiErrorOf(result.error);
          }
        : undefined,
  });
}
