/**
 * The worker's per-attempt bookkeeping, both R0 --> R0 and R1 --> R1:
 * - RecordGenerationAttempt: "verifies the chat is still running, increments generation_attempt"
 *   (the retry-state trigger then clears retry_state);
 * - RecordRetryState(payload): "verifies the chat is still running, stores the retry payload sent
 *   to clients as retry_state" (the trigger sets retry_state_version).
 * The updated snapshot is the committed chat the store returns.
 */
import type { ChatTx } from "../chat-tx";
import type { RetryState } from "../../db/schema/chats";

export async function recordGenerationAttempt(tx: ChatTx): Promise<void> {
  const from = tx.from("RecordGenerationAttempt");
  await tx.incrementGenerationAttempt();
  await tx.land("RecordGenerationAttempt", from, undefined);
}

export async function recordRetryState(tx: ChatTx, input: { retryState: RetryState }): Promise<void> {
  const from = tx.from("RecordRetryState");
  await tx.setRetryState(input.retryState);
  await tx.land("RecordRetryState", from, undefined);
}
