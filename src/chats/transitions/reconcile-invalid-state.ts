/**
 * ReconcileInvalidState (spec "Invalid states"): archived = false, status = 'error', last_error
 * explains the reset, requires_action_deadline_at = null, and pending dynamic tool calls get
 * synthetic cancellation results. Invalid --> E0 (no queued messages) | E1 (queued messages).
 * The snapshot bump (step 1) is the store's, as for every transition.
 */
import { INVALID_STATE_LAST_ERROR } from "../../chatstate/index";
import type { ChatTx } from "../chat-tx";
import { answerPendingToolCalls } from "../history";
import type { InsertedRange } from "../inserted-refs";

export const INVALID_STATE_REASON = "the chat was reset from an invalid state";

export async function reconcileInvalidState(tx: ChatTx): Promise<{ readonly messages: InsertedRange }> {
  const from = tx.from("ReconcileInvalidState");
  const mark = tx.inserted.count;
  await answerPendingToolCalls(tx, { dynamicOnly: true, reason: INVALID_STATE_REASON });
  await tx.land("ReconcileInvalidState", from, tx.queueLength === 0 ? "no queued messages" : "queued messages");
  tx.set({ lastError: INVALID_STATE_LAST_ERROR });
  return tx.inserted.withRowsSince(mark, {});
}
