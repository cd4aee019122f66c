/**
 * The pending-action episode of dynamic (client-executed) tools.
 * - EnterRequiresAction: "records a pending-action episode by relying on the committed assistant
 *   tool-call messages as the durable call set, sets requires_action_deadline_at, which is a
 *   timestamp 5 minutes in the future, and lands in requires_action." R0 --> A0, R1 --> A1.
 * - CompleteRequiresAction(results): "inserts submitted tool-result messages followed by any
 *   caller-provided suffix messages, clears requires_action_deadline_at, and lands in running.
 *   It preserves queued messages." A0 --> R0, A1 --> R1.
 * - CancelRequiresAction(reason): "closes pending dynamic tool calls with synthetic cancellation
 *   tool results ... clears requires_action_deadline_at, and lands in running." (misc rule 1,
 *   applied by the landing.) A0 --> R0, A1 --> R1.
 */
import type { ChatTx } from "../chat-tx";
import { InvalidTransitionInputError, ToolResultsMismatchError } from "../errors";
import { pendingCalls, queueHistory, type NewMessage } from "../history";
import type { InsertedRange } from "../inserted-refs";

export async function enterRequiresAction(tx: ChatTx, input: { now?: Date } = {}): Promise<{ deadline: Date }> {
  const from = tx.from("EnterRequiresAction");
  if ((await pendingCalls(tx, true)).length === 0) {
    throw new InvalidTransitionInputError("EnterRequiresAction", from, "no dynamic tool call is pending");
  }
  await tx.land("EnterRequiresAction", from, undefined, input.now === undefined ? {} : { now: input.now });
  const deadline = tx.chat.requiresActionDeadlineAt;
  if (deadline === null) throw new InvalidTransitionInputError("EnterRequiresAction", from, "no deadline was set");
  return { deadline };
}

export interface ToolResultInput {
  tool_call_id: string;
  output: unknown;
  is_error?: boolean;
}

export interface CompleteRequiresActionInput {
  results: readonly ToolResultInput[];
  createdBy?: string | null;
  suffix?: readonly NewMessage[];
}

/** Each pending dynamic call answered exactly once, nothing else. */
function checkResults(pending: ReadonlyMap<string, string>, results: readonly ToolResultInput[]): void {
  const seen = new Set<string>();
  const duplicate: string[] = [];
  const unexpected: string[] = [];
  for (const r of results) {
    if (seen.has(r.tool_call_id)) duplicate.push(r.tool_call_id);
    else if (!pending.has(r.tool_call_id)) unexpected.push(r.tool_call_id);
    seen.add(r.tool_call_id);
  }
  const missing = [...pending.keys()].filter((id) => !seen.has(id));
  if (duplicate.length + unexpected.length + missing.length > 0) throw new ToolResultsMismatchError({ missing, unexpected, duplicate });
}

/**
 * The results' INSERT goes out with the transaction's next statement (normally the commit write):
 * `messages` names the rows' places, and the committed result has the rows.
 */
export async function completeRequiresAction(
  tx: ChatTx,
  input: CompleteRequiresActionInput,
): Promise<{ readonly messages: InsertedRange }> {
  const from = tx.from("CompleteRequiresAction");
  const pending = new Map((await pendingCalls(tx, true)).map((call) => [call.tool_call_id, call.tool_name]));
  checkResults(pending, input.results);
  const createdBy = input.createdBy ?? tx.chat.ownerId;
  const results: NewMessage[] = input.results.map((r) => ({
    role: "tool",
    content: [
      {
        type: "tool-result",
        tool_call_id: r.tool_call_id,
        tool_name: pending.get(r.tool_call_id) ?? "",
        result: r.output,
        is_error: r.is_error ?? false,
      },
    ],
    modelConfigId: tx.chat.lastModelConfigId,
    createdBy,
  }));
  // The transition's last write: landing in running reads nothing more (misc rule 1 does not apply).
  const mark = tx.inserted.count;
  await queueHistory(tx, [...results, ...(input.suffix ?? [])], "tool results were submitted");
  await tx.land("CompleteRequiresAction", from, undefined);
  return tx.inserted.withRowsSince(mark, {});
}

export const REQUIRES_ACTION_TIMEOUT_REASON = "no tool result arrived before the deadline";

export async function cancelRequiresAction(tx: ChatTx, input: { reason?: string } = {}): Promise<{ readonly messages: InsertedRange }> {
  const from = tx.from("CancelRequiresAction");
  const mark = tx.inserted.count;
  await tx.land("CancelRequiresAction", from, undefined, { cancelReason: input.reason ?? REQUIRES_ACTION_TIMEOUT_REASON });
  return tx.inserted.withRowsSince(mark, {});
}
