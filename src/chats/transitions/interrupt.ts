/**
 * Interrupt(reason): "requests cancellation of an active generation or closes pending dynamic-tool
 * action. It preserves queued backlog." R0 --> I0, R1 --> I1, A0 --> R0, A1 --> R1.
 * When no worker owns the chat (worker_id is null) "nothing is generating, so the same transaction
 * also applies FinishInterruption after inserting synthetic cancellation results for any
 * outstanding tool calls": R0 --> W, R1 --> R0 | R1. An unowned chat already in I0/I1 gets
 * FinishInterruption alone; an owned one is rejected, "because its runner already finishes the
 * interruption".
 */
import { TransitionNotAllowedError } from "../../chatstate/index";
import type { ChatTx } from "../chat-tx";
import { finishInterruption } from "./finish-interruption";
import type { InsertedRange } from "../inserted-refs";

export const USER_INTERRUPT_REASON = "the user interrupted the chat";

export interface InterruptResult {
  /** FinishInterruption ran in this transaction because nothing owned the chat. */
  finished: boolean;
  /** Every history row inserted, in order (synthetic tool results, a promoted queue head). */
  readonly messages: InsertedRange;
}

export async function interrupt(tx: ChatTx, input: { reason?: string } = {}): Promise<InterruptResult> {
  const reason = input.reason ?? USER_INTERRUPT_REASON;
  const mark = tx.inserted.count;
  const state = tx.state();
  if (state === "I0" || state === "I1") {
    if (tx.ownership() === "O") throw new TransitionNotAllowedError("Interrupt", state);
    await finishInterruption(tx, { reason });
    return tx.inserted.withRowsSince(mark, { finished: true });
  }
  const from = tx.from("Interrupt");
  const to = await tx.land("Interrupt", from, undefined, { cancelReason: reason });
  if ((to === "I0" || to === "I1") && tx.ownership() === "U") {
    await finishInterruption(tx, { reason });
    return tx.inserted.withRowsSince(mark, { finished: true });
  }
  return tx.inserted.withRowsSince(mark, { finished: false });
}
