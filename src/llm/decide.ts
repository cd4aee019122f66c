/**
 * The generation goroutine's next step, decided from history alone (spec "Generation goroutine",
 * "Manual compaction" step 2). Pure: the runner reads the chat and its history, calls this, and
 * applies the matching transition. In order:
 * 1. pending local tool calls: run them (they may sit next to dynamic ones; those wait for step 2);
 * 2. pending dynamic tool calls: EnterRequiresAction;
 * 3. compaction requested and an uncompressed assistant message after the latest boundary: compact
 *    (with nothing to compact the request is ignored and the checks go on);
 * 4. a stop hook's context follows the last assistant response: the turn continues once, even
 *    past the step limit ("a turn can exceed the limit by one response");
 * 5. the last user-visible message is an assistant message: the turn is complete;
 * 6. the turn's step count reached the limit: finish the turn like a complete one;
 * 7. otherwise call the model.
 */
import type { ToolCallPart } from "../chatstate/rules";
import { pendingToolCalls } from "../chatstate/rules";
import type { ChatRow } from "../db/schema/chats";
import { hookContextEvent } from "../chats/hook-context-rows";
import { activeRows, activeTail, type HistoryRow, latestBoundaryIndex } from "./active-history";
import { isDynamicTool } from "./tools";

export type NextStep =
  | { kind: "call_model" }
  | { kind: "run_local_tools"; calls: ToolCallPart[] }
  | { kind: "enter_requires_action"; calls: ToolCallPart[] }
  | { kind: "finish_turn"; reason: "complete" | "step_limit" }
  | { kind: "compact" };

export interface DecideInput {
  chat: Pick<ChatRow, "unsafeDynamicTools" | "compactionRequestedAt">;
  /** The chat's rows; deleted ones are ignored. */
  history: readonly HistoryRow[];
  /** CHAT_MAX_STEPS_PER_TURN. */
  maxStepsPerTurn: number;
}

export function decideNextStep(input: DecideInput): NextStep {
  const active = activeRows(input.history);

  const pending = pendingToolCalls(activeTail(active));
  const local = pending.filter((call) => !isDynamicTool(input.chat, call.tool_name));
  if (local.length > 0) return { kind: "run_local_tools", calls: local };
  if (pending.length > 0) return { kind: "enter_requires_action", calls: pending };

  if (input.chat.compactionRequestedAt !== null && hasSomethingToCompact(active)) return { kind: "compact" };

  const lastAssistant = active.findLastIndex((row) => row.role === "assistant" && !row.compressed);
  if (lastAssistant >= 0 && active.some((row, i) => i > lastAssistant && hookContextEvent(row) === "stop")) return { kind: "call_model" };

  // The decision reads user-visible history: model-only rows (hook context, replayed input, the
  // system prompt) and boundary rows neither complete nor reopen a turn.
  const lastVisible = active.findLast((row) => !row.modelOnly && !row.compressed);
  if (lastVisible === undefined || lastVisible.role === "assistant") return { kind: "finish_turn", reason: "complete" };

  if (stepsThisTurn(active) >= input.maxStepsPerTurn) return { kind: "finish_turn", reason: "step_limit" };
  return { kind: "call_model" };
}

/** "at least one uncompressed assistant message exists after the latest compaction boundary". */
export function hasSomethingToCompact(active: readonly HistoryRow[]): boolean {
  const boundary = latestBoundaryIndex(active);
  return active.some((row, i) => i > boundary && row.role === "assistant" && !row.compressed);
}

/**
 * "A step is one committed assistant response; compressed compaction and clear messages do not
 * count. The count starts after the latest user message that is not model-only."
 */
export function stepsThisTurn(active: readonly HistoryRow[]): number {
  const start = turnStart(active);
  return active.filter((row, i) => i > start && row.role === "assistant" && !row.compressed).length;
}

/** The latest user message the user sent: not model-only and not a hook's visible context row. */
function turnStart(active: readonly HistoryRow[]): number {
  return active.findLastIndex((row) => row.role === "user" && !row.modelOnly && hookContextEvent(row) === null);
}

/** The stop hook already continued this turn once: it may not continue it again. */
export function stopContinuedThisTurn(history: readonly HistoryRow[]): boolean {
  const active = activeRows(history);
  const start = turnStart(active);
  return active.some((row, i) => i > start && hookContextEvent(row) === "stop");
}
