/**
 * How a route calls its chat's object, in three named steps: the object's RPC stub, typed by the
 * ChatObject class as Durable Object RPC intends; the request as a command's Sender (the caller
 * `requireCaller` authenticated, else the token `requireCredentials` took, which the object
 * authenticates on its warm pool: docs/hot-path.md); and the command's Answer, its value or its
 * error mapped to the Worker's HTTP answer with the Worker's one mapping.
 */
import type { Context } from "hono";
import type { ChatObject } from "../../durable-objects/chat-object";
import type { Answer, Sender } from "../chat-commands/chat-commands";
import type { AppEnv } from "../http/app-env";
import { apiErrorOf } from "../http/errors";
import { currentRequestId } from "../log/request-context";
import { chatObjectStub } from "../placement/chat-object-stub";

/**
 * The chat's object. Typed with the class's own signatures: the RPC stub types turn results that
 * hold `unknown` (tool arguments) into `never`, though they are plain JSON data that structured
 * clone carries unchanged.
 */
export function chatObjectOf(c: Context<AppEnv>, chatId: string): ChatObject {
  return chatObjectStub(c.env, chatId) as unknown as ChatObject;
}

/** The request as the object sees it: its id (so the object's log lines carry it) and its caller or token. */
export function senderOf(c: Context<AppEnv>): Sender {
  const requestId = currentRequestId() ?? crypto.randomUUID();
  const { caller, credentials } = c.var;
  if (caller) return { requestId, caller };
  if (credentials !== undefined) return { requestId, token: credentials };
  throw new Error("a chat command from a route with neither requireCaller nor requireCredentials");
}

/** The command's value; its error thrown as the ApiError the Worker answers with. */
export async function answered<V>(c: Context<AppEnv>, answer: Promise<Answer<V>>): Promise<V> {
  const result = await answer;
  if (result.userId !== undefined) c.set("authenticatedUserId", result.userId);
  if (result.ok) return result.value;
  throw apiErrorOf(result.error);
}
