/**
 * EditMessage(k, replacement): "clears queued messages, cancels or obsoletes active work, marks the
 * truncated active-history suffix as deleted, inserts the replacement turn followed by any
 * caller-provided suffix messages, and lands in running." Every non-archived valid state --> R0.
 * Partial output is not preserved: the runner sees history_version move and drops its turn.
 */
import { MessageNotFoundError } from "../../chatstate/index";
import type { ChatTx } from "../chat-tx";
import { InvalidTransitionInputError, StoreInvariantError } from "../errors";
import { cutAtUserMessage, queueHistory, type NewMessage } from "../history";
import { clearQueue } from "../queue";
import type { ChatMessagePart } from "../../db/schema/chats";
import { type InsertedRange, InsertedRow } from "../inserted-refs";

export interface EditMessageInput {
  /** k: an active, user-visible user message of this chat. */
  messageId: number;
  content: ChatMessagePart[];
  /** Default: the edited message's. */
  modelConfigId?: string | null;
  reasoningEffort?: string | null;
  /** Default: the edited message's author. */
  createdBy?: string | null;
  /** Inserted after the replacement in the same transaction. */
  suffix?: readonly NewMessage[];
}

/**
 * The replacement's INSERT goes out with the transaction's next statement (normally the commit
 * write): `message` and `messages` name their rows' places, and the committed result has the rows.
 */
export interface EditMessageResult {
  /** The replacement user message. */
  readonly message: InsertedRow;
  /** Every history row inserted, in order (synthetic tool results, the replacement, the suffix). */
  readonly messages: InsertedRange;
  deletedMessageIds: number[];
  deletedQueuedMessageIds: number[];
}

export const EDIT_REASON = "the conversation was edited";

export async function editMessage(tx: ChatTx, input: EditMessageInput): Promise<EditMessageResult> {
  const from = tx.from("EditMessage");
  const { target, deletedIds: deletedMessageIds } = await cutAtUserMessage(tx, input.messageId);
  if (target === undefined) throw new MessageNotFoundError(tx.chatId, input.messageId);
  if (target.role !== "user" || target.modelOnly) {
    throw new InvalidTransitionInputError("EditMessage", from, "only user messages shown to the user can be edited");
  }
  const deletedQueuedMessageIds = await clearQueue(tx);
  const replacement: NewMessage = {
    role: "user",
    content: input.content,
    modelConfigId: input.modelConfigId === undefined ? target.modelConfigId : input.modelConfigId,
    reasoningEffort: input.reasoningEffort === undefined ? target.reasoningEffort : input.reasoningEffort,
    createdBy: input.createdBy ?? target.createdBy,
  };
  const mark = tx.inserted.count;
  const queued = await queueHistory(tx, [replacement, ...(input.suffix ?? [])], EDIT_REASON);
  // Misc rule 1's cancellations follow, if a suffix left dynamic calls pending.
  await tx.land("EditMessage", from, undefined, { cancelReason: EDIT_REASON });
  // The replacement is the batch's first user row: only synthetic tool results can precede it.
  const replacementAt = queued.written.findIndex((m) => m.role === "user");
  if (replacementAt === -1) throw new StoreInvariantError("EditMessage inserted no replacement");
  return tx.inserted.withRowsSince(mark, {
    message: new InsertedRow(queued.rows.from + replacementAt),
    deletedMessageIds,
    deletedQueuedMessageIds,
  });
}
