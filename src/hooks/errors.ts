/**
 * How a dispatch fails. Hooks fail closed: each of these stops the operation that triggered the
 * event. A submission answers 502 (`hook_unavailable`, `hook_invalid_response`) or 403
 * (`hook_denied`) and writes nothing; inside a turn the chat goes to error with the message.
 */
import type { HookEventName } from "./events";

export type HookFailureCode = "hook_unavailable" | "hook_invalid_response";

export class HookFailureError extends Error {
  override name = "HookFailureError";
  constructor(
    readonly code: HookFailureCode,
    readonly event: HookEventName,
    readonly detail: string,
  ) {
    super(
      code === "hook_unavailable"
        ? `The lifecycle hook consumer could not be reached for ${event}: ${detail}`
        : `The lifecycle hook consumer gave an invalid response to ${event}: ${detail}`,
    );
  }
}

/** user_prompt_submit answered `decision: deny`. */
export class HookDeniedError extends Error {
  override name = "HookDeniedError";
  readonly code = "hook_denied";
  constructor(readonly reason: string | undefined) {
    super(reason ? `The prompt was denied by policy: ${reason}` : "The prompt was denied by policy.");
  }
}
