/**
 * The automatic compaction gate, run while preparing a model call (spec "Manual compaction",
 * "Compaction model selection"). Pure: reads the history's stored step usage and the triggers.
 *
 * - The previous step's prompt size is the input tokens of the newest assistant step after the
 *   newest boundary; with none (a fresh chat, or just compacted) nothing fires.
 * - "Still over limit": when it fires again and the first assistant step after the newest summary
 *   already reached the binding trigger, summarizing did not help: a terminal error, once, instead
 *   of a compaction loop. A summary recorded under another threshold or limit than the binding
 *   trigger is not a failed compaction (compact again); a 0 % threshold ("always compact") is
 *   never "still over".
 */
import type { ChatMessageRow } from "../../db/schema/chats";
import { activeRows, type HistoryRow, latestBoundaryIndex } from "../active-history";
import { latestSummaryRecord } from "./boundary";
import { type CompactionTrigger, type CompactionTriggers, reachesTrigger } from "./trigger";

export type UsageRow = HistoryRow & Pick<ChatMessageRow, "usage">;

export type GateDecision =
  | { kind: "none" }
  | { kind: "compact"; trigger: CompactionTrigger; promptTokens: number }
  | { kind: "still_over_limit"; trigger: CompactionTrigger; promptTokens: number; message: string };

function stepsAfterBoundary<R extends UsageRow>(history: readonly R[]): R[] {
  const active = activeRows(history);
  const boundary = latestBoundaryIndex(active);
  return active.filter((row, i) => i > boundary && row.role === "assistant" && !row.compressed);
}

const promptTokensOf = (row: UsageRow | undefined): number | null => row?.usage?.input_tokens ?? null;

/** The previous step's prompt size; null when no step after the newest boundary reported one. */
export function latestPromptTokens(history: readonly UsageRow[]): number | null {
  return promptTokensOf(stepsAfterBoundary(history).findLast((row) => promptTokensOf(row) !== null));
}

/** The prompt size of the first step after the newest boundary. */
export function firstPromptTokensAfterBoundary(history: readonly UsageRow[]): number | null {
  return promptTokensOf(stepsAfterBoundary(history)[0]);
}

export function automaticCompactionGate(history: readonly UsageRow[], triggers: CompactionTriggers): GateDecision {
  const binding = triggers.binding;
  const promptTokens = latestPromptTokens(history);
  if (promptTokens === null || !reachesTrigger(promptTokens, binding)) return { kind: "none" };

  const summary = latestSummaryRecord(history);
  const first = firstPromptTokensAfterBoundary(history);
  const sameTrigger =
    summary !== null &&
    summary.threshold_percent === binding.thresholdPercent &&
    summary.trigger_context_limit_tokens === binding.contextLimitTokens;
  if (sameTrigger && binding.thresholdPercent > 0 && first !== null && first >= binding.tokenPoint) {
    return { kind: "still_over_limit", trigger: binding, promptTokens: first, message: stillOverLimitMessage(first, triggers) };
  }
  return { kind: "compact", trigger: binding, promptTokens };
}

/** Names what can clear the error: the owner's threshold, a larger override window, or both. */
export function stillOverLimitMessage(promptTokens: number, triggers: CompactionTriggers): string {
  const binding = triggers.binding;
  if (binding === null) return "The conversation is over its context limit even after compaction.";
  const other = binding.kind === "chat" ? triggers.organization : triggers.chat;
  const otherReached = other?.enabled === true && promptTokens >= other.tokenPoint;
  const fixes: string[] = [];
  const ownerFix = "raise your compaction threshold in your chat preferences";
  const overrideFix = "ask an organization admin to choose a compaction model with a larger context window";
  if (binding.kind === "chat" || otherReached) fixes.push(ownerFix);
  if (binding.kind === "organization" || otherReached) fixes.push(overrideFix);
  const where =
    binding.kind === "chat"
      ? `your compaction threshold of ${binding.thresholdPercent}% of the chat model's ${binding.contextLimitTokens}-token window`
      : `${binding.thresholdPercent}% of the organization compaction model's ${binding.contextLimitTokens}-token window`;
  return (
    `The conversation is still over its compaction limit after summarizing: the prompt uses ${promptTokens} tokens, ` +
    `the limit is ${binding.tokenPoint} tokens (${where}). To continue, ${fixes.join(", or ")}; or clear the context.`
  );
}
