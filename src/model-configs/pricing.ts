/**
 * A model config's prices and what one model step costs under them (docs/usage-cost.md).
 *
 * Prices are integer micro-dollars per million tokens ($3 per million is 3_000_000). Token counts
 * follow the AI SDK: input tokens include the cached ones read, output tokens include reasoning.
 * So a step costs
 *   (input − cached) × input + cached × cached_input + (output − reasoning) × output + reasoning × reasoning
 * picodollars, where an unset cached-input price is the input price and an unset reasoning price
 * the output price. The cost is computed once, when the step is committed, and stored with it: a
 * later price change applies to later steps only.
 */
import type { MessageUsage } from "../db/schema/chats";
import { usdFromPicos } from "../wire/usd";

/** The most a price may be: $10,000 per million tokens (the column checks say the same). */
export const MAX_PRICE_MICROS = 10_000_000_000;

export interface ModelPricing {
  input_micros_per_million_tokens: number;
  output_micros_per_million_tokens: number;
  /** Null: cached input costs the input price. */
  cached_input_micros_per_million_tokens: number | null;
  /** Null: reasoning costs the output price. */
  reasoning_micros_per_million_tokens: number | null;
}

/** The price columns of a model config row. */
export interface PriceColumns {
  inputPriceMicros: number | null;
  outputPriceMicros: number | null;
  cachedInputPriceMicros: number | null;
  reasoningPriceMicros: number | null;
}

/** A config's prices; null when it is unpriced. */
export function pricingOf(row: PriceColumns): ModelPricing | null {
  if (row.inputPriceMicros === null || row.outputPriceMicros === null) return null;
  return {
    input_micros_per_million_tokens: row.inputPriceMicros,
    output_micros_per_million_tokens: row.outputPriceMicros,
    cached_input_micros_per_million_tokens: row.cachedInputPriceMicros,
    reasoning_micros_per_million_tokens: row.reasoningPriceMicros,
  };
}

/** The columns that store `pricing` (null: unpriced, all four cleared). */
export function priceColumns(pricing: ModelPricing | null): PriceColumns {
  return {
    inputPriceMicros: pricing?.input_micros_per_million_tokens ?? null,
    outputPriceMicros: pricing?.output_micros_per_million_tokens ?? null,
    cachedInputPriceMicros: pricing?.cached_input_micros_per_million_tokens ?? null,
    reasoningPriceMicros: pricing?.reasoning_micros_per_million_tokens ?? null,
  };
}

/** A token count as the provider reported it: a non-negative integer, or unknown. */
function tokens(count: number | null | undefined): bigint | null {
  return typeof count === "number" && Number.isSafeInteger(count) && count >= 0 ? BigInt(count) : null;
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * What a step with `usage` costs under `pricing`, in picodollars; null when it cannot be priced
 * (no prices, or the provider reported no input or output count).
 */
export function stepCostPicos(usage: MessageUsage, pricing: ModelPricing | null): bigint | null {
  if (pricing === null) return null;
  const input = tokens(usage.input_tokens);
  const output = tokens(usage.output_tokens);
  if (input === null || output === null) return null;
  // A detail larger than its total would be a provider's error: it is capped, never negative.
  const cached = min(tokens(usage.cached_input_tokens) ?? 0n, input);
  const reasoning = min(tokens(usage.reasoning_tokens) ?? 0n, output);
  const inputPrice = BigInt(pricing.input_micros_per_million_tokens);
  const outputPrice = BigInt(pricing.output_micros_per_million_tokens);
  const cachedPrice = BigInt(pricing.cached_input_micros_per_million_tokens ?? pricing.input_micros_per_million_tokens);
  const reasoningPrice = BigInt(pricing.reasoning_micros_per_million_tokens ?? pricing.output_micros_per_million_tokens);
  return (input - cached) * inputPrice + cached * cachedPrice + (output - reasoning) * outputPrice + reasoning * reasoningPrice;
}

/** stepCostPicos as the exact dollar string stored in chat_messages.cost_usd. */
export function stepCostUsd(usage: MessageUsage, pricing: ModelPricing | null): string | null {
  const picos = stepCostPicos(usage, pricing);
  return picos === null ? null : usdFromPicos(picos);
}
