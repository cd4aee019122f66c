/**
 * Rate limits (docs/fairness.md "Rate limits"): the Workers Rate Limiting bindings of wrangler.toml,
 * which wrangler dev and the tests simulate locally with the same windows. Each counts per key: a
 * token, a user, a client address or an account. The limits themselves are the bindings'
 * (`[[ratelimits]]`); the periods are repeated here for Retry-After, and a unit test keeps the two
 * in step. CHAT_RATE_LIMITS_ENABLED=false turns them off (the test suites not about them).
 */
import { configFromEnv } from "../config/env";
import { type RateLimitName, RateLimitedError } from "./errors";

/** The part of a Rate Limiting binding used here (workerd's RateLimit). */
export interface RateLimitBinding {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

type Bindings = Record<
  "RATE_LIMIT_SIGN_IN" | "RATE_LIMIT_TOKEN_WRITES" | "RATE_LIMIT_USER_WRITES" | "RATE_LIMIT_UPLOADS" | "RATE_LIMIT_SOCKET_OPENS",
  RateLimitBinding
>;

export const RATE_LIMITS: Readonly<Record<RateLimitName, { readonly binding: keyof Bindings; readonly periodSeconds: 10 | 60 }>> = {
  sign_in: { binding: "RATE_LIMIT_SIGN_IN", periodSeconds: 60 },
  writes_per_token: { binding: "RATE_LIMIT_TOKEN_WRITES", periodSeconds: 10 },
  writes_per_user: { binding: "RATE_LIMIT_USER_WRITES", periodSeconds: 60 },
  uploads: { binding: "RATE_LIMIT_UPLOADS", periodSeconds: 60 },
  socket_opens: { binding: "RATE_LIMIT_SOCKET_OPENS", periodSeconds: 60 },
};

/** Who a request counts against: its user and the token it presented. */
export interface RateLimited {
  readonly userId: string;
  readonly apiKeyId: string;
}

export class RateLimits {
  constructor(
    private readonly bindings: Bindings,
    private readonly enabled: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  /** A sign-in attempt: counted per client address (when known) and per account. */
  signIn(address: string | undefined, email: string): Promise<void> {
    const keys = [`account:${email.trim().toLowerCase()}`];
    if (address) keys.push(`address:${address}`);
    return this.#all(keys.map((key) => ["sign_in", key] as const));
  }

  /** A request that changes state: per token and per user. */
  write(caller: RateLimited): Promise<void> {
    return this.#all([
      ["writes_per_token", caller.apiKeyId],
      ["writes_per_user", caller.userId],
    ]);
  }

  upload(caller: RateLimited): Promise<void> {
    return this.#all([["uploads", caller.userId]]);
  }

  socketOpen(caller: RateLimited): Promise<void> {
    return this.#all([["socket_opens", caller.userId]]);
  }

  async #all(checks: readonly (readonly [RateLimitName, string])[]): Promise<void> {
    if (!this.enabled) return;
    const outcomes = await Promise.all(checks.map(([name, key]) => this.bindings[RATE_LIMITS[name].binding].limit({ key })));
    const refused = checks.find((_, i) => !outcomes[i]!.success);
    if (refused) throw new RateLimitedError(refused[0], this.#secondsToNextWindow(RATE_LIMITS[refused[0]].periodSeconds));
  }

  /** The windows are aligned to the clock (so are Cloudflare's, approximately): wait for the next. */
  #secondsToNextWindow(periodSeconds: number): number {
    const into = (this.now() / 1000) % periodSeconds;
    return Math.max(1, Math.ceil(periodSeconds - into));
  }
}

/** The deployment's rate limits, from its bindings and CHAT_RATE_LIMITS_ENABLED. */
export function rateLimitsOf(env: Bindings): RateLimits {
  return new RateLimits(env, configFromEnv(env).CHAT_RATE_LIMITS_ENABLED);
}
