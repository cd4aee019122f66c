/**
 * FinishInterruption(optionalPartialStep): "inserts one final interrupted assistant/tool suffix if
 * present, or finalizes interruption without a suffix if none is available, clears the
 * interrupting state, and lands in waiting if no queued message is promoted. If interrupt
 * finalization also promotes the queue head, it inserts the promoted queued message into history
 * and lands in running." I0 --> W; I1 --> R0 | R1.
 * Tool calls the partial suffix left unanswered are closed with synthetic cancellation results.
 */
import type { ChatTx } from "../chat-tx";
import { InvalidTransitionInputError } from "../errors";
import { answerPendingToolCalls, queueMessages, type NewMessage } from "../history";
import { promoteQueued, type Promotion } from "../queue";
import type { InsertedRange } from "../inserted-refs";

export const INTERRUPTED_REASON = "the generation was interrupted";

export interface FinishInterruptionInput {
  /** The interrupted assistant/tool suffix, if the runner has one. */
  partial?: readonly NewMessage[];
  reason?: string;
}

/**
 * The partial suffix's INSERT goes out with the transaction's next statement: `messages` names the
 * rows' places, and the committed result has the rows.
 */
export interface FinishInterruptionResult {
  /** Every history row inserted: the partial suffix, synthetic results, the promoted head. */
  readonly messages: InsertedRange;
  /** The promoted queue head (I1 only). */
  promoted: Promotion | null;
}

export async function finishInterruption(tx: ChatTx, input: FinishInterruptionInput = {}): Promise<FinishInterruptionResult> {
  const from = tx.from("FinishInterruption");
  const partial = input.partial ?? [];
  if (partial.some((m) => m.role !== "assistant" && m.role !== "tool")) {
    throw new InvalidTransitionInputError("FinishInterruption", from, "the partial suffix holds assistant and tool messages only");
  }
  const mark = tx.inserted.count;
  const reason = input.reason ?? INTERRUPTED_REASON;
  // Its calls left open are judged on it as written; the INSERT rides with the next statement.
  await queueMessages(tx, partial);
  await answerPendingToolCalls(tx, { dynamicOnly: false, reason });
  let promoted: Promotion | null = null;
  if (from === "I0") {
    await tx.land("FinishInterruption", from, undefined);
  } else {
    promoted = await promoteQueued(tx, "head", reason);
    await tx.land("FinishInterruption", from, tx.queueLength === 0 ? "promoted last queued" : "queue still non-empty after promoting head");
  }
  return tx.inserted.withRowsSince(mark, { promoted });
}
