/**
 * How a hook's context becomes part of the conversation: `model_context` as a model-only user row,
 * `user_context` as a visible user row, each wrapped in a `<hook_context>` tag naming the event.
 * The tag is what lets history tell hook rows from what the user typed (pure, from content alone):
 * hook rows never start a new turn's step count (spec "Generation goroutine"), and a stop row
 * after the last assistant response is the one-time stop continuation.
 */
import type { ChatMessagePart } from "../db/schema/chats";
import type { NewMessage } from "./history";
import type { HookEventName, HookResponse } from "../hooks/events";

const OPEN = "<hook_context event=";

export function hookContextRows(event: HookEventName, response: HookResponse): NewMessage[] {
  const rows: NewMessage[] = [];
  if (response.user_context) rows.push({ role: "user", content: [tagged(event, "user", response.user_context)], createdBy: null });
  if (response.model_context) {
    rows.push({ role: "user", content: [tagged(event, "model", response.model_context)], createdBy: null, modelOnly: true });
  }
  return rows;
}

function tagged(event: HookEventName, audience: "user" | "model", text: string): ChatMessagePart {
  return { type: "text", text: `${OPEN}"${event}" audience="${audience}">\n${text}\n</hook_context>` };
}

/** The event of a hook context row, or null for any other row. */
export function hookContextEvent(row: { role: string; content: readonly ChatMessagePart[] }): string | null {
  if (row.role !== "user") return null;
  const first = row.content[0];
  if (first?.type !== "text" || !first.text.startsWith(OPEN)) return null;
  const match = /^<hook_context event="([a-z_]+)"/.exec(first.text);
  return match?.[1] ?? null;
}
