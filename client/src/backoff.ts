/** Reconnect delays: exponential, capped, full jitter (a random delay in [0, cap]). */
export interface Backoff {
  initialMs?: number;
  maxMs?: number;
}

export function backoffDelay(attempt: number, { initialMs = 250, maxMs = 10_000 }: Backoff = {}): number {
  return Math.round(Math.random() * Math.min(maxMs, initialMs * 2 ** (attempt - 1)));
}
