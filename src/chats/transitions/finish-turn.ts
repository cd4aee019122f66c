/**
 * FinishTurn: "completes the current generation turn atomically. If the queue is empty, it lands
 * in waiting. If the queue is non-empty, it removes the queue head, inserts it into history as a
 * user turn, and lands in running." R0 --> W; R1 --> R0 | R1.
 */
import type { ChatTx } from "../chat-tx";
import { promoteQueued, type Promotion } from "../queue";

export const TURN_FINISHED_REASON = "the turn ended before the tool result arrived";

export async function finishTurn(tx: ChatTx): Promise<{ promoted: Promotion | null }> {
  const from = tx.from("FinishTurn");
  if (from === "R0") {
    await tx.land("FinishTurn", from, "queue empty");
    return { promoted: null };
  }
  const promoted = await promoteQueued(tx, "head", TURN_FINISHED_REASON);
  await tx.land("FinishTurn", from, tx.queueLength === 0 ? "promoted last queued" : "queue still non-empty after promoting head");
  return { promoted };
}
