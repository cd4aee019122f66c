/**
 * What locking the chat reads for each transition, in one table: whether the row lock reads the
 * active history tail (and the queue head) together with the queue count. One statement where a
 * transition that reads the tail would otherwise spend two, and a wasted read where it would not:
 * a transition that never reads the tail has no entry. A prefetch may depend on the locked row
 * (`(chat) => boolean`): it is then decided on the row the lock returns (row-lock.ts).
 */
import type { ChatRow } from "../db/schema/chats";
import type { ChatTx } from "./chat-tx";
import type { TailPrefetch } from "./row-lock";
import { clearContext } from "./transitions/clear-context";
import { finishInterruption } from "./transitions/finish-interruption";
import { finishTurn } from "./transitions/finish-turn";
import { interrupt } from "./transitions/interrupt";
import { promoteQueuedMessage } from "./transitions/queued-messages";
import { reconcileInvalidState } from "./transitions/reconcile-invalid-state";
import { cancelRequiresAction, completeRequiresAction, enterRequiresAction } from "./transitions/requires-action";
import { sendMessage } from "./transitions/send-message";

/** A transition as ChatStore.update applies it: the spec's transition on one locked chat. */
export type Transition<I, R> = (tx: ChatTx, input: I) => Promise<R>;

type Entry = readonly [Transition<never, unknown>, (input: never) => TailPrefetch];

/** An entry, its prefetch typed by the transition's own input. */
function entry<I>(transition: Transition<I, unknown>, prefetch: (input: I) => TailPrefetch): Entry {
  return [transition, prefetch];
}

const always = () => true;

const LOCK_PREFETCH = new Map<Transition<never, unknown>, (input: never) => TailPrefetch>([
  // Rule 2 from W and E, misc rule 1 from A, and an unowned interrupt read the tail.
  entry(
    sendMessage,
    (input) => (chat: ChatRow) =>
      chat.status === "waiting" ||
      chat.status === "error" ||
      (input.busyBehavior === "interrupt" && (chat.status === "requires_action" || chat.workerId === null)),
  ),
  // The requires-action and unowned paths.
  entry(interrupt, () => (chat: ChatRow) => chat.status === "requires_action" || chat.workerId === null),
  // From E1 and A1 the promotion answers outstanding tool calls first.
  entry(promoteQueuedMessage, () => (chat: ChatRow) => chat.status === "error" || chat.status === "requires_action"),
  entry(clearContext, always),
  entry(reconcileInvalidState, always),
  entry(enterRequiresAction, always),
  entry(completeRequiresAction, always),
  entry(cancelRequiresAction, always),
  entry(finishInterruption, always),
  entry(finishTurn, always),
]);

/** What locking the chat reads for `transition` applied with `input` (nothing for one without an entry). */
export function prefetchFor<I>(transition: Transition<I, unknown>, input: I): TailPrefetch {
  const prefetch = LOCK_PREFETCH.get(transition as Transition<never, unknown>) as ((input: I) => TailPrefetch) | undefined;
  return prefetch?.(input) ?? false;
}
