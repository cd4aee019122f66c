/**
 * The stream loop's Part operation (spec "Part operation"), pure: a relayed part is emitted only
 * when it belongs to the loop's current episode, the attempt is not retired, and it is the next
 * seq. Parts of a retired attempt are rejected before the sequence check, so they never count as
 * a gap; a gap in the current episode is an invariant violation (the relay delivers contiguously).
 */
import type { StreamCursors } from "./sync-state";

export interface RelayedPart {
  historyVersion: number;
  generationAttempt: number;
  seq: number;
}

export type PartVerdict = "accept" | "reject" | "gap";

export function judgePart(local: Readonly<StreamCursors>, part: RelayedPart): PartVerdict {
  return judgePartAt(local, part.historyVersion, part.generationAttempt, part.seq);
}

/**
 * `judgePart` on the part's fields: a relay burst is judged by every loop on the episode, and an
 * object per loop and part would be garbage by the million on a busy chat.
 */
export function judgePartAt(local: Readonly<StreamCursors>, historyVersion: number, generationAttempt: number, seq: number): PartVerdict {
  if (historyVersion !== local.historyVersion || generationAttempt !== local.generationAttempt) return "reject";
  if (local.attemptRetired) return "reject";
  if (seq === local.lastPartSeq + 1) return "accept";
  return seq > local.lastPartSeq + 1 ? "gap" : "reject";
}
