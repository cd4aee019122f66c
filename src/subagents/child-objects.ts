/**
 * ChildObjects: the SubagentHost of a chat's object. Each child command goes to the child's own
 * object by RPC, sent as the parent's owner (a parent acts for its owner, with no request of its
 * own to name), and a refusal comes back in the words the Worker would answer it with, which the
 * tools hand to the model. Waits ride on the parent's ChildWaiters, which its children's objects
 * wake.
 * Archiving a running family stops its members through the same interrupt.
 */
import type { ChatCommands, Sender } from "../chat-commands/chat-commands";
import type { ChatCommand } from "../chat-commands/context";
import type { CreateChatCommand } from "../chat-commands/create-chat";
import type { SendMessageCommand } from "../chat-commands/messages";
import { chatObjectStub } from "../placement/chat-object-stub";
import type { ChildWaiters } from "./child-waiters";
import type { ChildAnswer, ChildWatch, SubagentHost } from "./host";
import type { Outcome } from "../chat-commands/outcome";
import { apiErrorOf } from "../http/errors";

/** The RPC methods of a chat's object that a parent calls: those of ChatCommands, which the object forwards. */
export type ChildChatObject = Pick<ChatCommands, "createChild" | "sendMessage" | "interrupt">;

export class ChildObjects implements SubagentHost {
  constructor(
    private readonly env: Env,
    private readonly waiters: ChildWaiters,
  ) {}

  async createChild(cmd: CreateChatCommand) {
    return childAnswer(await this.#object(cmd.chatId).createChild(cmd));
  }

  async sendMessage({ callerId, ...cmd }: SendMessageCommand) {
    return childAnswer(await this.#object(cmd.chatId).sendMessage(asOwner(callerId), cmd));
  }

  async interrupt({ callerId, chatId }: ChatCommand) {
    return childAnswer(await this.#object(chatId).interrupt(asOwner(callerId), { chatId }));
  }

  watch(childIds: readonly string[]): ChildWatch {
    return this.waiters.watch(childIds);
  }

  /** Typed by the methods it serves: the RPC stub's types turn results holding `unknown` (tool arguments) into `never`. */
  #object(chatId: string): ChildChatObject {
    return chatObjectStub(this.env, chatId) as unknown as ChildChatObject;
  }
}

/** The answer with its error, if any, in the Worker's words for it (src/http/errors.ts). */
function childAnswer<V>(answer: Outcome<V>): ChildAnswer<V> {
  if (answer.ok) return { ok: true, value: answer.value };
  const { message, detail } = apiErrorOf(answer.error);
  return { ok: false, refusal: detail ? `${message} ${detail}` : message };
}

function asOwner(ownerId: string): Sender {
  return { requestId: null, caller: { userId: ownerId, siteRoles: [] } };
}
