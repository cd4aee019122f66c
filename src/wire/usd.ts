/**
 * Exact US dollar amounts (docs/usage-cost.md). Prices are integer micro-dollars per million
 * tokens, so a token count times a price is an integer number of picodollars (10^-12 $): every
 * cost is kept as a bigint of those, never as a float, and written as a decimal string.
 */

/** Picodollars in one dollar, and in one micro-dollar. */
const PICOS_PER_USD = 10n ** 12n;
const PICOS_PER_MICRO = 10n ** 6n;

/** `picos` as a decimal dollar string, without trailing zeros beyond the cents: 4_515_075_000n → "0.004515075". */
export function usdFromPicos(picos: bigint): string {
  if (picos < 0n) throw new RangeError("a cost is never negative");
  const whole = picos / PICOS_PER_USD;
  const fraction = (picos % PICOS_PER_USD).toString().padStart(12, "0").replace(/0+$/, "").padEnd(2, "0");
  return `${whole}.${fraction}`;
}

const DECIMAL = /^(\d+)(?:\.(\d{0,12}))?$/;

/**
 * A non-negative decimal dollar string (as Postgres writes a numeric) back to picodollars; digits
 * beyond the 12th decimal cannot arise from integer prices and are refused.
 */
export function picosFromUsd(usd: string): bigint {
  const match = DECIMAL.exec(usd.trim());
  if (!match) throw new RangeError(`not a dollar amount with at most 12 decimals: ${usd}`);
  return BigInt(match[1] ?? "0") * PICOS_PER_USD + BigInt((match[2] ?? "").padEnd(12, "0"));
}

/** The exact amount rounded to whole micro-dollars, half up: the one rounding, done once on a total. */
export function microsFromPicos(picos: bigint): number {
  return Number((picos + PICOS_PER_MICRO / 2n) / PICOS_PER_MICRO);
}
