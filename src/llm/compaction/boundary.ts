/**
 * The compaction boundary as history rows (spec "Manual compaction"): a hidden model-only summary
 * anchor, a visible `chat_summarized` tool call and its result (all three compressed), then the
 * trailing user messages the assistant had not answered, replayed verbatim as model-only rows so
 * the pruned prompt keeps them. Pure; committed in one CommitStep by the runner.
 */
import type { NewMessage } from "../../chats/history";
import type { ChatMessagePart } from "../../db/schema/chats";
import { activeRows, type HistoryRow, latestBoundaryIndex } from "../active-history";

export const CHAT_SUMMARIZED_TOOL = "chat_summarized";

export type CompactionSource = "automatic" | "manual";

/** What the tool call's args and its result both carry (and the streamed progress part). */
export interface SummaryRecord {
  source: CompactionSource;
  /** The binding trigger's threshold; null when no context window is known. */
  threshold_percent: number | null;
  /** The binding trigger's context limit (the override model's when the organization trigger binds). */
  trigger_context_limit_tokens: number | null;
  /** The chat model's window. */
  context_limit_tokens: number | null;
}

export const SUMMARY_PREFIX = "Summary of the conversation so far (earlier messages were compacted into it):";

export function summaryAnchorText(summary: string): string {
  return `${SUMMARY_PREFIX}\n\n${summary}`;
}

export interface CompactionRowsInput {
  toolCallId: string;
  summary: string;
  record: SummaryRecord;
  /** The trailing unanswered user messages, replayed after the triplet. */
  pendingUsers: readonly Pick<HistoryRow, "content">[];
  modelConfigId: string | null;
  /** Who wrote the summary and how large its prompt was (observability: the result keeps them). */
  summarizer: { provider: string; model: string; inputTokens?: number | null };
}

export function compactionMessages(input: CompactionRowsInput): NewMessage[] {
  const common = { compressed: true, modelConfigId: input.modelConfigId };
  const args: Record<string, unknown> = { ...input.record };
  return [
    { ...common, role: "user", modelOnly: true, content: [{ type: "text", text: summaryAnchorText(input.summary) }] },
    {
      ...common,
      role: "assistant",
      content: [{ type: "tool-call", tool_call_id: input.toolCallId, tool_name: CHAT_SUMMARIZED_TOOL, args }],
    },
    {
      ...common,
      role: "tool",
      content: [
        {
          type: "tool-result",
          tool_call_id: input.toolCallId,
          tool_name: CHAT_SUMMARIZED_TOOL,
          result: {
            ...input.record,
            summary: input.summary,
            provider: input.summarizer.provider,
            model: input.summarizer.model,
            summary_input_tokens: input.summarizer.inputTokens ?? null,
          },
          is_error: false,
        },
      ],
    },
    ...input.pendingUsers.map(
      (row): NewMessage => ({
        role: "user",
        modelOnly: true,
        content: row.content as ChatMessagePart[],
        modelConfigId: input.modelConfigId,
      }),
    ),
  ];
}

/**
 * Splits the rows after the newest boundary into what the summarizer reads and the trailing
 * unanswered user messages: the run of user rows at the very end (system rows in it are skipped,
 * they reach every prompt anyway), whatever precedes it (an answer, or tool results).
 */
export function splitPendingUsers<R extends HistoryRow>(rowsAfterBoundary: readonly R[]): { summarized: R[]; pendingUsers: R[] } {
  let start = rowsAfterBoundary.length;
  while (start > 0 && (rowsAfterBoundary[start - 1]?.role === "user" || rowsAfterBoundary[start - 1]?.role === "system")) start--;
  const pendingUsers = rowsAfterBoundary.slice(start).filter((row) => row.role === "user");
  const pending = new Set(pendingUsers);
  return { summarized: rowsAfterBoundary.filter((row) => !pending.has(row)), pendingUsers };
}

/** The record of the newest boundary when it is a summary; null when it is a clear or there is none. */
export function latestSummaryRecord(history: readonly HistoryRow[]): SummaryRecord | null {
  const active = activeRows(history);
  const boundary = latestBoundaryIndex(active);
  if (boundary === -1) return null;
  const row = active[boundary];
  if (row === undefined) return null;
  for (const part of row.content) {
    if ((part.type === "tool-result" || part.type === "tool-call") && part.tool_name === CHAT_SUMMARIZED_TOOL) {
      const value = (part.type === "tool-result" ? part.result : part.args) as Partial<SummaryRecord> | null;
      return {
        source: value?.source === "manual" ? "manual" : "automatic",
        threshold_percent: value?.threshold_percent ?? null,
        trigger_context_limit_tokens: value?.trigger_context_limit_tokens ?? null,
        context_limit_tokens: value?.context_limit_tokens ?? null,
      };
    }
  }
  return null;
}
