/**
 * CommitStep(step): "inserts one durable message suffix while remaining running." R0 --> R0,
 * R1 --> R1. A step holds assistant/tool messages; a compaction step may also hold model-only
 * user rows (the summary anchor, replayed pending user messages) and sets
 * consumeCompactionRequest, which clears compaction_requested_at in the same transaction
 * ("The compaction CommitStep consumes the request"). A lifecycle hook's visible context row
 * (src/chats/hook-context-rows.ts) is the one visible user row a step may hold.
 */
import { hookContextEvent } from "../hook-context-rows";
import type { ChatTx } from "../chat-tx";
import { InvalidTransitionInputError } from "../errors";
import { type NewMessage, queueHistory } from "../history";
import type { InsertedRange } from "../inserted-refs";

export interface CommitStepInput {
  messages: readonly NewMessage[];
  consumeCompactionRequest?: boolean;
}

export interface CommittedStep {
  /** The step's messages as written (a synthetic cancellation in front of a user row included). */
  readonly written: readonly NewMessage[];
  /**
   * Their rows' places. The INSERT rides in the round trip of the transaction's next statement
   * (the commit write's when the step is the last write); the committed result has the rows.
   */
  readonly messages: InsertedRange;
}

export async function commitStep(tx: ChatTx, input: CommitStepInput): Promise<CommittedStep> {
  const from = tx.from("CommitStep");
  if (input.messages.length === 0) throw new InvalidTransitionInputError("CommitStep", from, "a step holds at least one message");
  if (input.messages.some((m) => m.role === "system" || (m.role === "user" && !m.modelOnly && hookContextEvent(m) === null))) {
    throw new InvalidTransitionInputError("CommitStep", from, "a step holds assistant, tool, model-only user and hook context messages");
  }
  const mark = tx.inserted.count;
  const queued = await queueHistory(tx, input.messages, "the turn continued without the tool result");
  await tx.land("CommitStep", from, undefined);
  if (input.consumeCompactionRequest) tx.set({ compactionRequestedAt: null });
  return tx.inserted.withRowsSince(mark, { written: queued.written });
}
