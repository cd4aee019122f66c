// `/usage <input> <cached> <output> <reasoning> <rest>`: the reply to <rest> (echoed, or its own
// directive) reports exactly this usage instead of the counted one, so a test can price a known
// script of usages. <input> counts the cached tokens and <output> the reasoning ones, as the AI SDK
// reports them; each format writes them in its own fields (Anthropic: cached tokens apart from
// input_tokens, as `cache_read_input_tokens`, and no reasoning count). Also read from the user text
// before tool results, so every step of a turn reports it.

import type { LastTurn } from "./script";

export interface ReportedUsage {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
}

const DIRECTIVE = /^\s*\/usage\s+(\d{1,9})\s+(\d{1,9})\s+(\d{1,9})\s+(\d{1,9})(?:\s+|$)/;

function parse(text: string): { usage: ReportedUsage; rest: string } | undefined {
  const match = DIRECTIVE.exec(text);
  if (!match) return undefined;
  const [input, cached, output, reasoning] = match.slice(1, 5).map(Number) as [number, number, number, number];
  // A detail larger than its total is no usage a provider reports: the directive is then echoed.
  if (cached > input || reasoning > output) return undefined;
  return {
    usage: { inputTokens: input, cachedInputTokens: cached, outputTokens: output, reasoningTokens: reasoning },
    rest: text.slice(match[0].length),
  };
}

/** The turn without its `/usage` prefix, and the usage it asks for (undefined: count as usual). */
export function usageDirective(turn: LastTurn): { turn: LastTurn; usage: ReportedUsage | undefined } {
  const parsed = parse(turn.kind === "user" ? turn.text : turn.userText);
  if (!parsed) return { turn, usage: undefined };
  const stripped: LastTurn = turn.kind === "user" ? { ...turn, text: parsed.rest } : { ...turn, userText: parsed.rest };
  return { turn: stripped, usage: parsed.usage };
}
