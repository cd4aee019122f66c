/**
 * Messages from this chat's object to other chats' objects, by RPC: the spec's two pubsub channels
 * (`chat:update`, `chat:ownership`) for transitions this object ran on another chat, and a child's
 * report to its parent's wait_agent. Best effort, kept alive past the call: a lost message is
 * healed by the receiver's sync poll, the cron sweep, or the waiter's timeout.
 */
import type { ChatUpdatePayload, OwnershipHint } from "../../src/chats/notifier";
import { errorText, logger } from "../../src/log/log";
import { chatObjectStub } from "../../src/placement/chat-object-stub";

/** What another chat's object receives from this one (the ChatObject's methods of the same names). */
export interface ChatObjectInbox {
  notify(payload: ChatUpdatePayload): void;
  wake(hint: OwnershipHint): void;
  childChanged(report: { parent_chat_id: string; chat_id: string }): void;
}

export class OtherChatObjects {
  constructor(
    private readonly state: DurableObjectState,
    private readonly env: Env,
  ) {}

  notify(chatId: string, payload: ChatUpdatePayload): void {
    this.#send(chatId, (inbox) => inbox.notify(payload));
  }

  wake(chatId: string, hint: OwnershipHint): void {
    this.#send(chatId, (inbox) => inbox.wake(hint));
  }

  /** A child of `parentId` moved: its parent's wait_agent calls re-read. */
  childChanged(parentId: string, chatId: string): void {
    this.#send(parentId, (inbox) => inbox.childChanged({ parent_chat_id: parentId, chat_id: chatId }));
  }

  #send(chatId: string, call: (inbox: Promisified<ChatObjectInbox>) => Promise<void>): void {
    const inbox = chatObjectStub(this.env, chatId) as unknown as Promisified<ChatObjectInbox>;
    this.state.waitUntil(
      call(inbox).catch((err: unknown) => logger.warn("notify_forward_failed", { chat_id: chatId, error: errorText(err) })),
    );
  }
}

/** An RPC stub answers every call with a promise. */
type Promisified<T> = { [K in keyof T]: T[K] extends (...args: infer A) => void ? (...args: A) => Promise<void> : never };
