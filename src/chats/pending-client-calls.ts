/**
 * The tool calls a chat in requires_action waits on its client for: the active tail's pending calls
 * of the chat's own dynamic tools, with `args` as a JSON string as Coder's `ChatStreamToolCall`
 * carries them. /stream's `action_required` and the chat list watch's send the same list.
 */
import { pendingToolCalls } from "../chatstate/index";
import { chatFromRaw, messageFromRaw, type Queryable } from "../db/rows";
import type { ChatMessageRow, ChatRow } from "../db/schema/chats";
import type { PendingToolCall } from "../wire/stream-events";
import { ACTIVE_TAIL_SQL } from "./active-tail";
import { dynamicToolNames } from "./history";

/** The calls of `tail` (the active tail, oldest first) still waiting on one of the chat's dynamic tools. */
export function pendingClientCalls(tail: readonly ChatMessageRow[], chat: Pick<ChatRow, "unsafeDynamicTools">): PendingToolCall[] {
  const names = dynamicToolNames(chat);
  return pendingToolCalls(tail)
    .filter((call) => names.has(call.tool_name))
    .map((call) => ({ tool_call_id: call.tool_call_id, tool_name: call.tool_name, args: JSON.stringify(call.args ?? {}) }));
}

/** Reads one chat's pending client calls; empty when the chat is gone or waits on nothing. */
export async function readPendingClientCalls(db: Queryable, chatId: string): Promise<PendingToolCall[]> {
  const { rows: chatRows } = await db.query("SELECT id, unsafe_dynamic_tools FROM chats WHERE id = $1", [chatId]);
  const [raw] = chatRows;
  if (raw === undefined) return [];
  const { rows: tail } = await db.query(ACTIVE_TAIL_SQL, [chatId]);
  return pendingClientCalls(tail.map(messageFromRaw), chatFromRaw(raw));
}
