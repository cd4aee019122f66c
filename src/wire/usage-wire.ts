/** A message's usage and cost as the API and the stream send them (`ChatMessage.usage`, docs/usage-cost.md). */
import type { ChatMessageRow } from "../db/schema/chats";
import { picosFromUsd, usdFromPicos } from "./usd";

export interface ChatMessageUsageWire {
  input_tokens: number | null;
  output_tokens: number | null;
  total_tokens: number | null;
  reasoning_tokens: number | null;
  cached_input_tokens: number | null;
  /** Exact dollars, as priced when the step was committed; null when its model had no prices. */
  cost_usd: string | null;
}

/**
 * A stored cost in the API's one spelling. Rows read through to_jsonb carry the numeric as a JSON
 * number, which may come back in exponent form ("1e-7"): that one is re-read through a fixed
 * 12-decimal rendering.
 */
export function normalizedUsd(stored: string): string {
  try {
    return usdFromPicos(picosFromUsd(stored));
  } catch {
    return usdFromPicos(picosFromUsd(Number(stored).toFixed(12)));
  }
}

/** Null for every row that is not a model step (users, tools, boundaries without usage). */
export function usageToWire(m: Pick<ChatMessageRow, "usage" | "costUsd">): ChatMessageUsageWire | null {
  if (m.usage === null) return null;
  return {
    input_tokens: m.usage.input_tokens ?? null,
    output_tokens: m.usage.output_tokens ?? null,
    total_tokens: m.usage.total_tokens ?? null,
    reasoning_tokens: m.usage.reasoning_tokens ?? null,
    cached_input_tokens: m.usage.cached_input_tokens ?? null,
    cost_usd: m.costUsd === null ? null : normalizedUsd(m.costUsd),
  };
}
