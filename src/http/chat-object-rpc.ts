import type { Context } from "hono";
import {
  type ChatCommandName,
  type ChatCommandRpc,
  type CommandInput,
  type CommandValue,
  isChatCommand,
} from "../chat-commands/command-table";
import { currentRequestId } from "../log/request-context";
import type { AppEnv } from "./app-env";
import { apiErrorOf } from "./errors";
import { chatObjectStub } from "../placement/chat-object-stub";

/** The chat commands of a ChatObject (src/chat-commands/command-table.ts), as the routes call them. */
export type ChatObjectCommands = {
  [K in ChatCommandName]: (cmd: CommandInput<K>) => Promise<CommandValue<K>>;
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
  const stub = chatObjectStub(c.env, chatId) as unknown as ChatCommandRpc;
  const requestId = currentRequestId() ?? crypto.randomUUID();
  return new Proxy({} as ChatObjectCommands, {
    get: (_target, name) =>
      typeof name === "string" && isChatCommand(name)
        ? async (cmd: CommandInput<typeof name>) => {
            const result = await stub.command(requestId, name, cmd);
            if (result.ok) return result.value;
            throw apiErrorOf(result.error);
          }
        : undefined,
  });
}
