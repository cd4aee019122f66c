/**
 * A failed model call, classified once so the runner can choose between RecordRetryState and
 * FinishError without looking at provider details (spec "Generation goroutine": "retryable
 * failures (408, 429, 5xx, 529, network)"; "A non-retryable error applies FinishError immediately").
 */

export const MODEL_ERROR_KINDS = [
  "rate_limit",
  "overloaded",
  "server",
  "timeout",
  "network",
  "auth",
  "bad_request",
  "context_overflow",
  "unknown",
] as const;
export type ModelErrorKind = (typeof MODEL_ERROR_KINDS)[number];

export class ModelCallError extends Error {
  override name = "ModelCallError";
  readonly kind: ModelErrorKind;
  readonly retryable: boolean;
  /** The wire protocol family: "openai", "anthropic" or "openai-compatible". */
  readonly provider: string;
  /** The HTTP status of the failed response; absent for network failures and in-stream errors without one. */
  readonly statusCode: number | undefined;

  constructor(input: {
    kind: ModelErrorKind;
    retryable: boolean;
    provider: string;
    message: string;
    statusCode?: number | undefined;
    cause?: unknown;
  }) {
    super(input.message, input.cause === undefined ? undefined : { cause: input.cause });
    this.kind = input.kind;
    this.retryable = input.retryable;
    this.provider = input.provider;
    this.statusCode = input.statusCode;
  }
}

export function isModelCallError(error: unknown): error is ModelCallError {
  return error instanceof ModelCallError;
}
