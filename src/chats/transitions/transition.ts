/**
 * A transition as `ChatStore.update` applies it: the spec's transition on one locked chat, and
 * what its transaction reads up front, declared beside the transition in its own file rather than
 * chosen again by every caller. `prefetchTail(input)` says whether locking the chat reads the
 * active history tail together with the queue count: one statement where a transition that reads
 * the tail would otherwise spend two, and a wasted read where it would not. A transition that
 * never reads the tail declares none.
 */
import type { ChatTx } from "../chat-tx";
import type { TailPrefetch } from "../row-lock";

export interface Transition<I, R> {
  (tx: ChatTx, input: I): Promise<R>;
  readonly prefetchTail?: (input: I) => TailPrefetch;
}

/** What `transition` declares the lock should read for `input` (nothing when it declares none). */
export function prefetchFor<I>(transition: Transition<I, unknown>, input: I): TailPrefetch {
  return transition.prefetchTail?.(input) ?? false;
}
