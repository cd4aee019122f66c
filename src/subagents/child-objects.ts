/**
 * ChildObjects: the SubagentHost of a chat's object. Each child command goes to the child's own
 * object by RPC, sent as the parent's owner (a parent acts for its owner, with no request of its
 * own to name); waits ride on the parent's ChildWaiters, which its children's objects wake.
 * Archiving a running family stops its members through the same interrupt.
 */
import type { ChatCommands, Sender } from "../chat-commands/chat-commands";
import type { ChatCommand } from "../chat-commands/context";
import type { CreateChatCommand } from "../chat-commands/create-chat";
import type { SendMessageCommand } from "../chat-commands/messages";
import { chatObjectStub } from "../placement/chat-object-stub";
import type { ChildWaiters } from "./child-waiters";
import type { ChildWatch, SubagentHost } from "./host";

/** The RPC methods of a chat's object that a parent calls: those of ChatCommands, which the object forwards. */
export type ChildChatObject = Pick<ChatCommands, "createChild" | "sendMessage" | "interrupt">;

export class ChildObjects implements SubagentHost {
  constructor(
    private readonly env: Env,
    private readonly waiters: ChildWaiters,
  ) {}

  createChild(cmd: CreateChatCommand) {
    return this.#object(cmd.chatId).createChild(cmd);
  }

  sendMessage({ callerId, ...cmd }: SendMessageCommand) {
    return this.#object(cmd.chatId).sendMessage(asOwner(callerId), cmd);
  }

  interrupt({ callerId, chatId }: ChatCommand) {
    return this.#object(chatId).interrupt(asOwner(callerId), { chatId });
  }

  watch(childIds: readonly string[]): ChildWatch {
    return this.waiters.watch(childIds);
  }

  /** Typed by the methods it serves: the RPC stub's types turn results holding `unknown` (tool arguments) into `never`. */
  #object(chatId: string): ChildChatObject {
    return chatObjectStub(this.env, chatId) as unknown as ChildChatObject;
  }
}

function asOwner(ownerId: string): Sender {
  return { requestId: null, caller: { userId: ownerId, siteRoles: [] } };
}
