/**
 * Retry policy of the generation goroutine (spec "Generation goroutine"): backoff 1 s doubling to
 * 60 s; FinishError once generation_attempt exceeds CHAT_MAX_GENERATION_RETRIES.
 */
import { type CoderErrorKind, coderErrorKind } from "../wire/error-kind";
import type { ModelCallError } from "./model-call-error";

export const RETRY_INITIAL_DELAY_MS = 1_000;
export const RETRY_MAX_DELAY_MS = 60_000;

/** The wait after failed attempt `attempt` (1-based): 1 s, 2 s, 4 s, ... capped at 60 s (from `initialMs`, CHAT_RETRY_INITIAL_DELAY_MS). */
export function retryDelayMs(attempt: number, initialMs: number = RETRY_INITIAL_DELAY_MS): number {
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  // 2^16 times the smallest initial wait already exceeds the cap; stop before the power grows without bound.
  if (exponent >= 16) return RETRY_MAX_DELAY_MS;
  return Math.min(initialMs * 2 ** exponent, RETRY_MAX_DELAY_MS);
}

/** The stream's `retry` event payload (docs/api.md "Stream WebSocket"), stored by RecordRetryState as `retry_state`. */
export interface RetryPayload {
  [key: string]: unknown;
  attempt: number;
  delay_ms: number;
  error: string;
  /** One of Coder's kinds (src/wire/error-kind.ts). */
  kind: CoderErrorKind;
  /** This service's finer classification of the failure (ModelErrorKind). */
  reason: string;
  provider: string;
  status_code: number | null;
  retrying_at: string;
}

export function retryPayload(error: ModelCallError, attempt: number, delayMs: number, now: Date): RetryPayload {
  return {
    attempt,
    delay_ms: delayMs,
    error: error.message,
    kind: coderErrorKind(error.kind),
    reason: error.kind,
    provider: error.provider,
    status_code: error.statusCode ?? null,
    retrying_at: new Date(now.getTime() + delayMs).toISOString(),
  };
}

/**
 * "When an attempt fails with a retryable error and generation_attempt exceeds the limit, the
 * goroutine applies FinishError instead of retrying, so the default allows 26 attempts."
 * `generationAttempt` is the chat's counter after RecordGenerationAttempt (1 on the first attempt).
 */
export function shouldFinishError(generationAttempt: number, maxRetries: number): boolean {
  return generationAttempt > maxRetries;
}
