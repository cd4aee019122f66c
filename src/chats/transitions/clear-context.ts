/**
 * ClearContext(messages): "inserts the caller-built compressed clear boundary triplet (a hidden
 * model-only sentinel user row, plus visible synthetic chat_cleared tool-call and tool-result
 * messages), clears last_error and any pending compaction_requested_at, leaves ownership
 * untouched, and lands in waiting." W, E0 --> W.
 * "If no active model-visible non-system message follows the latest boundary, the transaction
 * rolls back with a "nothing to clear" conflict" (NothingToClearError).
 */
import type { ChatTx } from "../chat-tx";
import { NothingToClearError } from "../errors";
import { hasSomethingToClear, insertHistory, type NewMessage } from "../history";
import type { ChatMessageRow } from "../../db/schema/chats";

export const CHAT_CLEARED_TOOL = "chat_cleared";
export const CLEAR_SENTINEL_TEXT = "The user cleared the conversation context. Earlier messages are not part of this conversation.";

/**
 * The boundary triplet, in history order: the sentinel anchors future prompts (model-only); the
 * tool call and its result show the clear in the transcript. All three are compressed, so the
 * pair is boundary decoration, never prompt content.
 */
export function clearBoundaryMessages(input: {
  toolCallId: string;
  clearedAt: Date;
  createdBy: string | null;
  modelConfigId: string | null;
}): NewMessage[] {
  const common = { compressed: true, modelConfigId: input.modelConfigId };
  return [
    { ...common, role: "user", modelOnly: true, createdBy: input.createdBy, content: [{ type: "text", text: CLEAR_SENTINEL_TEXT }] },
    {
      ...common,
      role: "assistant",
      content: [{ type: "tool-call", tool_call_id: input.toolCallId, tool_name: CHAT_CLEARED_TOOL, args: {} }],
    },
    {
      ...common,
      role: "tool",
      content: [
        {
          type: "tool-result",
          tool_call_id: input.toolCallId,
          tool_name: CHAT_CLEARED_TOOL,
          result: { cleared_at: input.clearedAt.toISOString() },
          is_error: false,
        },
      ],
    },
  ];
}

export async function clearContext(
  tx: ChatTx,
  input: { createdBy?: string | null; toolCallId?: string } = {},
): Promise<{ messages: ChatMessageRow[] }> {
  const from = tx.from("ClearContext");
  if (!(await hasSomethingToClear(tx))) throw new NothingToClearError(tx.chatId);
  const triplet = clearBoundaryMessages({
    toolCallId: input.toolCallId ?? `chat_cleared_${crypto.randomUUID()}`,
    clearedAt: tx.now(),
    createdBy: input.createdBy ?? tx.chat.ownerId,
    modelConfigId: tx.chat.lastModelConfigId,
  });
  const messages = await insertHistory(tx, triplet, "the conversation context was cleared");
  await tx.land("ClearContext", from, undefined);
  return { messages };
}
