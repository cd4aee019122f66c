/**
 * DeleteQueuedMessage(qid): "removes one queued message without changing the active history."
 * E1/R1/I1/A1 --> the same state, or its "0" sibling when the last queued message went.
 *
 * PromoteQueuedMessage(qid): "makes a queued message the next message to process." From R1 and I1
 * it "leaves the message queued at the head so FinishInterruption(partial?) can promote it" (--> I1);
 * from E1 and A1 it "removes the queued message and inserts it into history immediately"
 * (--> R0 | R1). "Either way, the resulting history message has queued_message_id = qid."
 */
import { QueuedMessageNotFoundError } from "../../chatstate/index";
import type { ChatTx } from "../chat-tx";
import { findQueued, moveToHead, promoteQueued, removeQueued } from "../queue";
import type { ChatQueuedMessageRow } from "../../db/schema/chats";
import type { InsertedRange, InsertedRow } from "../inserted-refs";

export interface DeleteQueuedMessageResult {
  deleted: ChatQueuedMessageRow;
}

export async function deleteQueuedMessage(tx: ChatTx, input: { queuedMessageId: number }): Promise<DeleteQueuedMessageResult> {
  const from = tx.from("DeleteQueuedMessage");
  const deleted = await removeQueued(tx, input.queuedMessageId);
  if (deleted === undefined) throw new QueuedMessageNotFoundError(tx.chatId, input.queuedMessageId);
  await tx.land("DeleteQueuedMessage", from, tx.queueLength === 0 ? "removed last queued" : "queue still non-empty");
  return { deleted };
}

export interface PromoteQueuedMessageResult {
  /** The queue row as it was before promotion. */
  queuedMessage: ChatQueuedMessageRow;
  /** The history message (E1, A1); null when it stays at the head of the queue (R1, I1). */
  message: InsertedRow | null;
  /** Every history row inserted, in order (synthetic tool results, then the message). */
  readonly messages: InsertedRange;
}

export const PROMOTE_REASON = "a queued message was promoted";

export async function promoteQueuedMessage(tx: ChatTx, input: { queuedMessageId: number }): Promise<PromoteQueuedMessageResult> {
  const from = tx.from("PromoteQueuedMessage");
  const queuedMessage = await findQueued(tx, input.queuedMessageId);
  if (queuedMessage === undefined) throw new QueuedMessageNotFoundError(tx.chatId, input.queuedMessageId);
  if (from === "R1" || from === "I1") {
    await moveToHead(tx, queuedMessage);
    await tx.land("PromoteQueuedMessage", from, undefined);
    return { queuedMessage, message: null, messages: tx.inserted.rangeSince(tx.inserted.count) };
  }
  const mark = tx.inserted.count;
  const promoted = await promoteQueued(tx, queuedMessage.id, PROMOTE_REASON);
  await tx.land("PromoteQueuedMessage", from, tx.queueLength === 0 ? "promoted last queued" : "queue still non-empty", {
    cancelReason: PROMOTE_REASON,
  });
  return tx.inserted.withRowsSince(mark, { queuedMessage, message: promoted.message });
}
