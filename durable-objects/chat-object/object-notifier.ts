/**
 * The Notifier a ChatObject plugs into its store. A transition on the object's own chat is
 * delivered in memory (the spec's pubsub, without the network); one on another chat (a family
 * archive touches every member) goes to that chat's object by RPC. Best effort either way: the
 * receivers' sync poll heals a lost notification.
 */
import type { ChatUpdatePayload, Notifier, OwnershipHint } from "../../src/chats/notifier";

export interface LocalChatListener {
  chatUpdated(payload: ChatUpdatePayload): void;
  ownershipHint(hint: OwnershipHint): void;
}

export interface RemoteChatObjects {
  notify(chatId: string, payload: ChatUpdatePayload): void;
  wake(chatId: string, hint: OwnershipHint): void;
}

export class ObjectNotifier implements Notifier {
  constructor(
    private readonly ownChatId: () => string | undefined,
    private readonly local: LocalChatListener,
    private readonly remote: RemoteChatObjects,
  ) {}

  chatUpdated(payload: ChatUpdatePayload): void {
    if (payload.chat_id === this.ownChatId()) this.local.chatUpdated(payload);
    else this.remote.notify(payload.chat_id, payload);
  }

  ownershipHint(hint: OwnershipHint): void {
    if (hint.chat_id === this.ownChatId()) this.local.ownershipHint(hint);
    else this.remote.wake(hint.chat_id, hint);
  }
}
