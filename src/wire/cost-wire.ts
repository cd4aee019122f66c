/**
 * Usage and cost reads as the API sends them (docs/usage-cost.md): a chat's, a user's and an
 * organization's totals, with their breakdowns. Every total is summed exactly by Postgres over the
 * costs stored with each step; `total_cost_micros` is that exact total rounded once.
 */
import { microsFromPicos, picosFromUsd, usdFromPicos } from "./usd";

export interface UsageTotalsWire {
  /** Exact dollars over the priced steps. */
  total_cost_usd: string;
  /** total_cost_usd in whole micro-dollars, half up. */
  total_cost_micros: number;
  priced_message_count: number;
  /** Steps whose model config had no prices when they were committed (or whose provider reported no counts). */
  unpriced_message_count: number;
  total_input_tokens: number;
  total_output_tokens: number;
  total_cached_input_tokens: number;
  total_reasoning_tokens: number;
}

/** The aggregate columns every cost read selects (src/chats/cost.ts TOTALS_SQL), as Postgres text. */
export interface TotalsRow {
  cost_usd: string;
  priced: string | number;
  unpriced: string | number;
  input_tokens: string;
  output_tokens: string;
  cached_input_tokens: string;
  reasoning_tokens: string;
}

const count = (value: string | number): number => Number(value);

export function totalsToWire(row: TotalsRow): UsageTotalsWire {
  const picos = picosFromUsd(row.cost_usd);
  return {
    total_cost_usd: usdFromPicos(picos),
    total_cost_micros: microsFromPicos(picos),
    priced_message_count: count(row.priced),
    unpriced_message_count: count(row.unpriced),
    total_input_tokens: count(row.input_tokens),
    total_output_tokens: count(row.output_tokens),
    total_cached_input_tokens: count(row.cached_input_tokens),
    total_reasoning_tokens: count(row.reasoning_tokens),
  };
}

export interface ModelUsageWire extends UsageTotalsWire {
  /** Null for steps recorded without a model config. */
  model_config_id: string | null;
  display_name: string | null;
  model: string | null;
}

export interface ChatUsageWire extends UsageTotalsWire {
  chat_id: string;
  title: string;
}

/** One turn of a chat: the steps that answered one prompt. */
export interface TurnUsageWire extends UsageTotalsWire {
  /** The user message that started the turn; null for steps before any (none in practice). */
  user_message_id: number | null;
  started_at: string;
}

export interface UserUsageWire extends UsageTotalsWire {
  user_id: string;
  username: string;
}

export interface ChatCostWire extends UsageTotalsWire {
  chat_id: string;
  /** Coder's ChatCost names: every counted step (a model request that reported usage)... */
  request_count: number;
  /** ...and the unpriced ones among them (unpriced_message_count). */
  unpriced_request_count: number;
  /** The chat and its subagents, each on its own (the totals above are theirs together). */
  by_chat: ChatUsageWire[];
  by_model: ModelUsageWire[];
  /** The chat's own turns, newest first, at most `turn_limit`. */
  turns: TurnUsageWire[];
}

export interface CostRangeWire {
  start_date: string;
  end_date: string;
}

export interface UserCostSummaryWire extends UsageTotalsWire, CostRangeWire {
  user_id: string;
  organization_id: string | null;
  by_model: ModelUsageWire[];
  /** Root chats, subagents rolled in, costliest first, at most `limit`. */
  by_chat: ChatUsageWire[];
  chat_count: number;
}

export interface OrganizationCostSummaryWire extends UsageTotalsWire, CostRangeWire {
  organization_id: string;
  by_model: ModelUsageWire[];
  /** Members' chats, costliest first, at most `limit`. */
  by_user: UserUsageWire[];
  user_count: number;
}
