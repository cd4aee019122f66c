/**
 * One transition on one chat in a transaction of its own, with the prefetch the transition
 * declares: how the database tests drive a chat, where production code calls ChatStore.update
 * with its own checks around the transition.
 */
import type { ChatStore, Committed } from "../../../src/chats/store";
import { prefetchFor, type Transition } from "../../../src/chats/lock-prefetch";

export function apply<I, R>(
  store: ChatStore,
  transition: Transition<I, R>,
  chatId: string,
  ...[input]: undefined extends I ? [input?: I] : [input: I]
): Promise<Committed<R>> {
  return store.update(chatId, (tx) => transition(tx, input as I), { prefetchTail: prefetchFor(transition, input as I) });
}
