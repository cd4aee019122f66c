/**
 * The summarizer's prompt: the chat's prompt (pruned at the newest boundary, so an earlier summary
 * is folded into the new one) without the trailing unanswered user messages, then the instruction.
 * When the summarizer is another provider type than the chat model, this copy is re-sanitized
 * (spec "Prompt safety"): tool history flattened into text, file parts replaced with text
 * placeholders, reasoning dropped. The chat's own prompt is never mutated. Pure.
 */
import type { AssistantModelMessage, ModelMessage, UserModelMessage } from "ai";
import type { ChatRow } from "../../db/schema/chats";
import { activeRows, type HistoryRow, latestBoundaryIndex } from "../active-history";
import { buildPrompt, type ModelPrompt } from "../prompt";
import { splitPendingUsers } from "./boundary";

export const SUMMARIZER_SYSTEM =
  "You compact conversations. Write a summary that lets the assistant continue the conversation " +
  "without the original messages: the user's goals and constraints, decisions made, facts learned, " +
  "tool results that still matter, and the open tasks. Plain text, no preamble.";

export const SUMMARY_INSTRUCTION = "Summarize the conversation above for the assistant to continue from it.";

export interface SummaryInput<R extends HistoryRow> {
  prompt: ModelPrompt;
  /** Replayed after the boundary, verbatim. */
  pendingUsers: R[];
}

export function summaryInput<R extends HistoryRow>(
  chat: Pick<ChatRow, "systemPrompt">,
  history: readonly R[],
  options: { reSanitize: boolean },
): SummaryInput<R> {
  const active = activeRows(history);
  const boundary = latestBoundaryIndex(active);
  const { pendingUsers } = splitPendingUsers(active.slice(boundary + 1));
  const pending = new Set<R>(pendingUsers);
  const chatPrompt = buildPrompt({ chat, history: active.filter((row) => !pending.has(row)) });
  const messages = options.reSanitize ? flattenForAnotherProvider(chatPrompt.messages) : chatPrompt.messages;
  const system =
    chatPrompt.system === undefined
      ? SUMMARIZER_SYSTEM
      : `${SUMMARIZER_SYSTEM}\n\nThe assistant's instructions were:\n${chatPrompt.system}`;
  return {
    prompt: { system, messages: [...messages, { role: "user", content: [{ type: "text", text: SUMMARY_INSTRUCTION }] }] },
    pendingUsers,
  };
}

type ToolOutput = Extract<ModelMessage, { role: "tool" }>["content"][number] extends infer P
  ? P extends { output: infer O }
    ? O
    : never
  : never;

function outputText(output: ToolOutput): string {
  if ("value" in output) return typeof output.value === "string" ? output.value : json(output.value);
  return output.type;
}

type UserPart = Exclude<UserModelMessage["content"], string>[number];
type AssistantPart = Exclude<AssistantModelMessage["content"], string>[number];

const json = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return String(value);
  }
};

/** Provider-neutral: only text parts, tool calls and results as text, files as placeholders. */
export function flattenForAnotherProvider(messages: readonly ModelMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "system":
        out.push(message);
        break;
      case "user": {
        const content =
          typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content.map(userText);
        out.push({ role: "user", content });
        break;
      }
      case "assistant": {
        const parts =
          typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content.flatMap(assistantText);
        if (parts.length > 0) out.push({ role: "assistant", content: parts });
        break;
      }
      case "tool": {
        const text = message.content
          .map((part) =>
            part.type === "tool-result" ? `[tool result ${part.toolName} (${part.toolCallId}): ${outputText(part.output)}]` : "",
          )
          .filter((t) => t.length > 0)
          .join("\n");
        if (text) out.push({ role: "user", content: [{ type: "text", text }] });
        break;
      }
    }
  }
  return out;
}

function userText(part: UserPart): { type: "text"; text: string } {
  if (part.type === "text") return part;
  const media = "mediaType" in part ? part.mediaType : "image";
  return { type: "text", text: `[file (${media}) omitted for the summarizer]` };
}

function assistantText(part: AssistantPart): { type: "text"; text: string }[] {
  switch (part.type) {
    case "text":
      return [part];
    case "tool-call":
      return [{ type: "text", text: `[tool call ${part.toolName} (${part.toolCallId}): ${json(part.input)}]` }];
    case "tool-result":
      return [{ type: "text", text: `[tool result ${part.toolName} (${part.toolCallId}): ${outputText(part.output)}]` }];
    case "file":
      return [{ type: "text", text: `[file (${part.mediaType}) omitted for the summarizer]` }];
    default:
      // Reasoning (and provider-specific parts) do not carry over to another provider.
      return [];
  }
}
