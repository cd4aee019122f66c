/**
 * The Notifier a ChatObject plugs into its store. A transition on the object's own chat is
 * delivered in memory, to the object's own inbox (the spec's pubsub, without the network); one on
 * another chat (a family archive touches every member, a released slot wakes waiting chats) goes
 * to that chat's object by RPC. Best effort either way: the receivers' sync poll heals a lost
 * notification.
 */
import type { ChatUpdatePayload, Notifier, OwnershipHint } from "../../src/chats/notifier";
import type { ObjectChatId } from "./object-chat-id";
import type { ChatObjectInbox, OtherChatObjects } from "./other-chat-objects";

export class ObjectNotifier implements Notifier {
  constructor(
    private readonly chatId: ObjectChatId,
    private readonly own: Pick<ChatObjectInbox, "notify" | "wake">,
    private readonly others: OtherChatObjects,
  ) {}

  chatUpdated(payload: ChatUpdatePayload): void {
    if (payload.chat_id === this.chatId.value) this.own.notify(payload);
    else this.others.notify(payload.chat_id, payload);
  }

  ownershipHint(hint: OwnershipHint): void {
    if (hint.chat_id === this.chatId.value) this.own.wake(hint);
    else this.others.wake(hint.chat_id, hint);
  }
}
