/**
 * A chat's persisted error as clients see it: Coder's `ChatError` object (the `last_error` of a
 * chat, the payload of the stream's `error` event), built from the row's `last_error` text and
 * its structured `last_error_detail`. `kind` is Coder's, `reason` this service's finer one.
 */
import type { LastErrorDetail } from "../db/schema/chats";
import { type CoderErrorKind, coderErrorKind } from "./error-kind";

/** Coder's `ChatError`, plus `reason`. */
export interface ChatErrorWire {
  message: string;
  detail: string | null;
  /** One of Coder's kinds (./error-kind.ts). */
  kind: CoderErrorKind;
  /** This service's finer classification, e.g. `server`, `network`, `context_overflow`. */
  reason: string;
  provider: string | null;
  retryable: boolean;
  status_code: number | null;
}

/** The reason of an error stored without structured detail (no model configured, a reconciled state). */
export const UNCLASSIFIED_ERROR_REASON = "generation_failed";

/** Null when the chat has no error. */
export function errorPayloadOf(lastError: string | null, detail: LastErrorDetail | null = null): ChatErrorWire | null {
  if (lastError === null) return null;
  const reason = detail?.kind ?? UNCLASSIFIED_ERROR_REASON;
  return {
    message: lastError,
    detail: detail?.detail ?? null,
    kind: coderErrorKind(reason),
    reason,
    provider: detail?.provider ?? null,
    retryable: detail?.retryable ?? false,
    status_code: detail?.status_code ?? null,
  };
}
