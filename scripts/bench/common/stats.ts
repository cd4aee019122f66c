/** Small summaries and number formats shared by the stream benches' reports. */

/** Linear interpolation between closest ranks (numpy's default). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function median(values: readonly (number | undefined)[]): number {
  const xs = values.filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b);
  return quantile(xs, 0.5);
}

export function minMax(values: readonly number[]): [number, number] {
  const xs = values.filter(Number.isFinite);
  return xs.length === 0 ? [Number.NaN, Number.NaN] : [Math.min(...xs), Math.max(...xs)];
}

export const fixed = (x: number, digits = 1): string => (Number.isFinite(x) ? x.toFixed(digits) : "–");
export const ratio = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(2)}x` : "–");
/** Thousands as "12.3k" above 10,000. */
export const count = (x: number): string => (!Number.isFinite(x) ? "–" : x >= 10_000 ? `${(x / 1000).toFixed(1)}k` : x.toFixed(0));
export const verdict = (met: boolean | undefined): string => (met === undefined ? "–" : met ? "met" : "**not met**");

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
