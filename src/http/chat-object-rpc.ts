import type { Context } from "hono";
import {
  type ChatCommandName,
  type ChatCommandRpc,
  type CommandInput,
  type CommandValue,
  type CreateRequest,
  isChatCommand,
  type TokenCommandInput,
} from "../chat-commands/command-table";
import { currentRequestId } from "../log/request-context";
import type { AppEnv } from "./app-env";
import { apiErrorOf } from "./errors";
import { chatObjectStub } from "../placement/chat-object-stub";

/**
 * The chat commands of a ChatObject (src/chat-commands/command-table.ts), as the routes call them:
 * without a caller, which the request supplies.
 */
export type ChatObjectCommands = {
  [K in ChatCommandName]: (cmd: TokenCommandInput<K>) => Promise<CommandValue<K>>;
};

/**
 * The Durable Object that owns a chat: every mutation of the chat goes through it. Each call
 * becomes one RPC with the current request's id, so the object's log lines for it carry the same
 * `request_id` as the Worker's, and with the request's caller: the one `requireCaller` authenticated
 * here, or else the token `requireCredentials` took, which the object authenticates itself
 * (docs/hot-path.md). Typed with the class's own signatures: the RPC stub types turn results that
 * hold `unknown` (tool arguments) into `never`, though they are plain JSON data that structured
 * clone carries unchanged. A command's error comes back as a value and is mapped to its answer
 * here, with the Worker's one mapping.
 */
export function chatObject(c: Context<AppEnv>, chatId: string): ChatObjectCommands {
  const stub = chatObjectStub(c.env, chatId) as unknown as ChatCommandRpc;
  const requestId = currentRequestId() ?? crypto.randomUUID();
  const { caller, credentials } = c.var;
  return new Proxy({} as ChatObjectCommands, {
    get: (_target, name) =>
      typeof name === "string" && isChatCommand(name)
        ? async (cmd: TokenCommandInput<typeof name>) => {
            let result: Awaited<ReturnType<ChatCommandRpc["command"]>>;
            if (caller) result = await stub.command(requestId, name, { ...cmd, callerId: caller.userId } as CommandInput<typeof name>);
            else if (credentials !== undefined) {
              const answered = await stub.commandWithToken(requestId, credentials, name, cmd);
              if (answered.userId !== undefined) c.set("authenticatedUserId", answered.userId);
              result = answered;
            } else throw new Error("a chat command from a route with neither requireCaller nor requireCredentials");
            if (result.ok) return result.value;
            throw apiErrorOf(result.error);
          }
        : undefined,
  });
}

/**
 * POST /chats in the new chat's object, which authenticates the token `requireCredentials` took
 * and checks the organization there, on its own pool near the database (docs/hot-path.md).
 */
export async function createInChatObject(c: Context<AppEnv>, cmd: CreateRequest): Promise<CommandValue<"create">> {
  const stub = chatObjectStub(c.env, cmd.chatId) as unknown as ChatCommandRpc;
  const credentials = c.var.credentials;
  if (credentials === undefined) throw new Error("POST /chats without requireCredentials");
  const answered = await stub.createWithToken(currentRequestId() ?? crypto.randomUUID(), credentials, cmd);
  if (answered.userId !== undefined) c.set("authenticatedUserId", answered.userId);
  if (answered.ok) return answered.value;
  throw apiErrorOf(answered.error);
}
