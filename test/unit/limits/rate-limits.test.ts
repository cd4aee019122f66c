/**
 * The rate limits' side of the bindings: the periods repeated for Retry-After agree with
 * wrangler.toml's, each request counts against the keys docs/fairness.md names, and a refusal
 * says when the next window opens. (The bindings themselves run in the hostile-tenant suite.)
 */
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { RATE_LIMITS, RateLimits } from "../../../src/limits/rate-limits";
import { RateLimitedError } from "../../../src/limits/errors";

/** A binding that allows `limit` calls per key and records the keys it was asked about. */
function countingBinding(limit: number) {
  const counts = new Map<string, number>();
  return {
    keys: [] as string[],
    async limit({ key }: { key: string }) {
      this.keys.push(key);
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      return { success: n <= limit };
    },
  };
}

function bindings(limit: number) {
  return {
    RATE_LIMIT_SIGN_IN: countingBinding(limit),
    RATE_LIMIT_TOKEN_WRITES: countingBinding(limit),
    RATE_LIMIT_USER_WRITES: countingBinding(limit),
    RATE_LIMIT_UPLOADS: countingBinding(limit),
    RATE_LIMIT_SOCKET_OPENS: countingBinding(limit),
  };
}

describe("rate limits", () => {
  it("name the bindings and periods wrangler.toml declares", () => {
    const config = unstable_readConfig({ config: "wrangler.toml" }, { hideWarnings: true });
    const declared = new Map(config.ratelimits.map((r: { name: string; simple: { period: number } }) => [r.name, r.simple.period]));
    for (const { binding, periodSeconds } of Object.values(RATE_LIMITS)) expect(declared.get(binding), binding).toBe(periodSeconds);
  });

  it("count a write against its token and its user, and a sign-in against its account and address", async () => {
    const b = bindings(100);
    const limits = new RateLimits(b, true);
    await limits.write({ userId: "u1", apiKeyId: "k1" });
    await limits.signIn("203.0.113.9", " Ada@Example.com ");
    await limits.signIn(undefined, "ada@example.com");
    expect(b.RATE_LIMIT_TOKEN_WRITES.keys).toEqual(["k1"]);
    expect(b.RATE_LIMIT_USER_WRITES.keys).toEqual(["u1"]);
    expect(b.RATE_LIMIT_SIGN_IN.keys).toEqual(["account:ada@example.com", "address:203.0.113.9", "account:ada@example.com"]);
  });

  it("refuse past the limit with the seconds to the next window, and not at all when off", async () => {
    const at = 1_700_000_004_500; // 4.5 s into a 10 s window, 24.5 s into a 60 s one
    const limits = new RateLimits(bindings(1), true, () => at);
    await limits.write({ userId: "u", apiKeyId: "k" });
    const refused = await limits.write({ userId: "u", apiKeyId: "k" }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect(refused).toMatchObject({ limit: "writes_per_token", retryAfterSeconds: 6 });
    await expect(limits.upload({ userId: "u", apiKeyId: "k" })).resolves.toBeUndefined();
    await expect(limits.upload({ userId: "u", apiKeyId: "k" })).rejects.toMatchObject({ limit: "uploads", retryAfterSeconds: 36 });

    const off = new RateLimits(bindings(0), false);
    await expect(off.write({ userId: "u", apiKeyId: "k" })).resolves.toBeUndefined();
  });
});
