/**
 * The `kind` of a chat error or retry on the wire: one of Coder's `ChatErrorKind` values, so
 * Coder's clients render it as they render their own. This service classifies failures more
 * finely (src/llm/model-call-error.ts, the hook failures, errors with no classification); that
 * finer classification travels beside it as `reason` (docs/api.md "Stream WebSocket").
 */

/** Coder's `ChatErrorKind` list (codersdk/chats.go). */
export const CODER_ERROR_KINDS = [
  "generic",
  "overloaded",
  "rate_limit",
  "timeout",
  "stream_silence_timeout",
  "auth",
  "config",
  "usage_limit",
  "missing_key",
  "provider_disabled",
  "content_filter",
  "hook_dispatch_failed",
  "hook_denied",
] as const;
export type CoderErrorKind = (typeof CODER_ERROR_KINDS)[number];

/** Our reasons that have a closer Coder kind than `generic`; every other reason is `generic`. */
const CODER_KIND_OF_REASON: Readonly<Record<string, CoderErrorKind>> = {
  rate_limit: "rate_limit",
  overloaded: "overloaded",
  timeout: "timeout",
  auth: "auth",
  hook_unavailable: "hook_dispatch_failed",
  hook_invalid_response: "hook_dispatch_failed",
  hook_denied: "hook_denied",
};

/** The Coder kind for one of our reasons (a reason that already is a Coder kind keeps it). */
export function coderErrorKind(reason: string): CoderErrorKind {
  const mapped = CODER_KIND_OF_REASON[reason];
  if (mapped !== undefined) return mapped;
  return (CODER_ERROR_KINDS as readonly string[]).includes(reason) ? (reason as CoderErrorKind) : "generic";
}
