/**
 * The two ways fair use refuses a request (docs/fairness.md): too fast (a rate limit, 429 with
 * Retry-After) or too much (a quota, 403). Both write nothing.
 */

/** What a rate limit counts (src/limits/rate-limits.ts). */
export type RateLimitName = "sign_in" | "writes_per_token" | "writes_per_user" | "uploads" | "socket_opens";

export class RateLimitedError extends Error {
  override name = "RateLimitedError";
  constructor(
    readonly limit: RateLimitName,
    readonly retryAfterSeconds: number,
  ) {
    super(`rate limit ${limit} reached; try again in ${retryAfterSeconds} s`);
  }
}

/** What a quota bounds (src/limits/quotas.ts). */
export type QuotaName =
  | "chats_per_user"
  | "sockets_per_chat"
  | "sockets_per_user"
  | "watch_sockets_per_user"
  | "upload_bytes_per_user"
  | "upload_bytes_per_organization"
  | "subagents_per_turn"
  | "subagents_per_family";

export class QuotaExceededError extends Error {
  override name = "QuotaExceededError";
  constructor(
    readonly quota: QuotaName,
    readonly limit: number,
    detail: string,
  ) {
    super(detail);
  }
}
