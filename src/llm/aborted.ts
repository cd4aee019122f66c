/**
 * The runner cancelled the work (its abort signal fired). Not a failure: no retry state, no
 * FinishError; the cancelled task just exits.
 */
export class AbortedError extends Error {
  override name = "AbortedError";
  constructor(message = "cancelled by the runner") {
    super(message);
  }
}

export function isAbortedError(error: unknown): error is AbortedError {
  return error instanceof AbortedError;
}
