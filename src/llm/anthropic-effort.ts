/**
 * Reasoning effort for Anthropic models (spec "Reasoning effort": "For Anthropic, ... effort [becomes]
 * enabled budget thinking on models older than Claude 4.6, which reject adaptive thinking").
 *
 * Claude 4.6 and later: adaptive thinking with the effort on Anthropic's own scale (low..max).
 * Older models: extended thinking with a token budget taken from ANTHROPIC_THINKING_BUDGET. On both,
 * `none` turns thinking off. A model id whose version cannot be read (a proxy alias, a new naming
 * scheme) is treated as current: new models take adaptive thinking.
 */
import type { JSONValue } from "ai";
import type { ReasoningEffort } from "../model-configs/options";

/**
 * Thinking budget per effort for models before Claude 4.6. 1024 is Anthropic's minimum budget; the
 * top stays under 32k, the smallest output cap among thinking models (Claude Opus 4); the AI SDK adds
 * the budget to max_tokens and clamps to the model's cap.
 */
export const ANTHROPIC_THINKING_BUDGET: Record<Exclude<ReasoningEffort, "none">, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 24576,
  max: 31999,
};

export interface ClaudeVersion {
  major: number;
  minor: number;
}

/**
 * The version in a Claude model id: `claude-3-5-sonnet-20241022` → 3.5, `claude-sonnet-4-20250514`
 * → 4.0, `claude-opus-4-1` → 4.1, `anthropic.claude-sonnet-4-6-v1:0` → 4.6. Undefined when the id
 * names no Claude version.
 */
export function claudeVersion(model: string): ClaudeVersion | undefined {
  const at = model.toLowerCase().indexOf("claude-");
  if (at < 0) return undefined;
  // Version numbers are 1-2 digit words; an 8-digit date or a `v1:0` suffix is not one.
  const words = model
    .slice(at + "claude-".length)
    .toLowerCase()
    .split(/[-.@]/);
  const numbers: number[] = [];
  for (const word of words) {
    if (/^\d{1,2}$/.test(word)) numbers.push(Number(word));
    else if (numbers.length > 0) break;
  }
  if (numbers.length === 0) return undefined;
  return { major: numbers[0]!, minor: numbers[1] ?? 0 };
}

/** Models before Claude 4.6 reject adaptive thinking and take a budget instead. */
export function usesBudgetThinking(model: string): boolean {
  const v = claudeVersion(model);
  if (v === undefined) return false;
  return v.major < 4 || (v.major === 4 && v.minor < 6);
}

/** The `providerOptions.anthropic` fields for an effort on the global scale. */
export function anthropicEffortOptions(model: string, effort: ReasoningEffort): Record<string, JSONValue> {
  if (effort === "none") return { thinking: { type: "disabled" } };
  if (usesBudgetThinking(model)) return { thinking: { type: "enabled", budgetTokens: ANTHROPIC_THINKING_BUDGET[effort] } };
  // Anthropic's effort scale starts at low.
  return { thinking: { type: "adaptive" }, effort: effort === "minimal" ? "low" : effort };
}
