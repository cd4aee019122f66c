/**
 * SendMessage(m, busy_behavior): "inserts a user message directly when the chat is idle, or queues
 * it when the chat is busy ... With busy_behavior=interrupt, it also requests interruption or
 * cancels a pending dynamic-tool action as needed." W, E0 --> R0 (inserted); E1 --> R1 (appended,
 * head promoted, error cleared); R*, I*, A* --> queued (see the table for the landing).
 * "If no worker owns the chat, the same transaction applies FinishInterruption instead" of leaving
 * it in I1: the head is promoted at once (from R0 that head is m itself).
 */
import type { ChatTx } from "../chat-tx";
import { queueHistory } from "../history";
import { enqueue, promoteQueued } from "../queue";
import type { ChatMessagePart, ChatQueuedMessageRow, QueuedHookContext } from "../../db/schema/chats";
import { type InsertedRange, InsertedRow } from "../inserted-refs";
import { finishInterruption } from "./finish-interruption";

export type BusyBehavior = "queue" | "interrupt";

export interface SendMessageInput {
  content: ChatMessagePart[];
  busyBehavior: BusyBehavior;
  modelConfigId?: string | null;
  reasoningEffort?: string | null;
  /** Falls back to the chat's owner. */
  createdBy?: string | null;
  /** Rows a lifecycle hook returned for m: inserted right after m, now or when m is promoted. */
  hookContext?: QueuedHookContext[];
}

/**
 * When m goes straight into history from W or E0, its INSERT goes out with the transaction's next
 * statement (normally the commit write): `message` and `messages` name their rows' places, and the
 * committed result has the rows (inserted-refs.ts).
 */
export interface SendMessageResult {
  /** m is waiting in the queue after this transaction. */
  queued: boolean;
  /** m as a history row, when it went straight into history (directly or promoted at once). */
  message: InsertedRow | null;
  /** Every history row this send inserted, in order: synthetic tool results, promoted heads, m. */
  messages: InsertedRange;
  /** The queue row holding m, when m is queued. */
  queuedMessage: ChatQueuedMessageRow | null;
  /** When the queue head this send promoted was queued (the spec's queue_wait starts there). */
  promotedQueuedAt: Date | null;
}

export const NEW_MESSAGE_REASON = "the user sent a new message";

export async function sendMessage(tx: ChatTx, input: SendMessageInput): Promise<SendMessageResult> {
  const variant = input.busyBehavior;
  const from = tx.from("SendMessage", variant);
  const mark = tx.inserted.count;
  const createdBy = input.createdBy ?? tx.chat.ownerId;
  const hookContext = input.hookContext ?? [];
  const m = {
    content: input.content,
    modelConfigId: input.modelConfigId ?? null,
    reasoningEffort: input.reasoningEffort ?? null,
    createdBy,
  };

  if (from === "W" || from === "E0") {
    const context = hookContext.map((c) => ({ role: "user" as const, content: c.content, modelOnly: c.model_only, createdBy: null }));
    // The send's last write: its INSERT rides in the commit write's round trip (see SendMessageResult).
    const queued = await queueHistory(tx, [{ role: "user", ...m }, ...context], NEW_MESSAGE_REASON);
    await tx.land("SendMessage", from, variant);
    return tx.inserted.withRowsSince(mark, {
      queued: false,
      message: new InsertedRow(queued.rows.to - 1 - context.length),
      queuedMessage: null,
      promotedQueuedAt: null,
    });
  }

  if (from === "E1") {
    // "appends m to the end of the queue, promotes the current queue head, and clears the error".
    // Promoting first keeps a full queue from refusing m for a slot the head is about to free.
    const promoted = await promoteQueued(tx, "head", NEW_MESSAGE_REASON);
    const queuedMessage = await enqueue(tx, { ...m, hookContext });
    await tx.land("SendMessage", from, variant);
    return tx.inserted.withRowsSince(mark, { queued: true, message: null, queuedMessage, promotedQueuedAt: promoted.queued.createdAt });
  }

  const queuedMessage = await enqueue(tx, { ...m, hookContext });
  const to = await tx.land("SendMessage", from, variant, { cancelReason: NEW_MESSAGE_REASON });
  if (variant === "interrupt" && to === "I1" && tx.ownership() === "U") {
    const finished = await finishInterruption(tx, {});
    const promoted = finished.promoted;
    const promotedQueuedAt = promoted?.queued.createdAt ?? null;
    if (promoted?.queued.id === queuedMessage.id) {
      return tx.inserted.withRowsSince(mark, { queued: false, message: promoted.message, queuedMessage: null, promotedQueuedAt });
    }
    return tx.inserted.withRowsSince(mark, { queued: true, message: null, queuedMessage, promotedQueuedAt });
  }
  return tx.inserted.withRowsSince(mark, { queued: true, message: null, queuedMessage, promotedQueuedAt: null });
}
