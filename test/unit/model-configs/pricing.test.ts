/** Pricing a step and the exact dollar arithmetic beneath it (docs/usage-cost.md). */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { MessageUsage } from "../../../src/db/schema/chats";
import {
  MAX_PRICE_MICROS,
  type ModelPricing,
  priceColumns,
  pricingOf,
  stepCostPicos,
  stepCostUsd,
} from "../../../src/model-configs/pricing";
import { microsFromPicos, picosFromUsd, usdFromPicos } from "../../../src/wire/usd";

const usage = (u: Partial<MessageUsage>): MessageUsage => ({
  input_tokens: null,
  output_tokens: null,
  total_tokens: null,
  reasoning_tokens: null,
  cached_input_tokens: null,
  ...u,
});

// $3 in, $15 out, $0.30 cached, $0.075 would be a price with three decimals.
const sonnet: ModelPricing = {
  input_micros_per_million_tokens: 3_000_000,
  output_micros_per_million_tokens: 15_000_000,
  cached_input_micros_per_million_tokens: 300_000,
  reasoning_micros_per_million_tokens: null,
};

describe("stepCostUsd", () => {
  it("prices uncached input, cached input, text output and reasoning each at its own price", () => {
    // 1000 in (200 cached), 500 out (100 reasoning), reasoning at $60 per million.
    const pricing = { ...sonnet, reasoning_micros_per_million_tokens: 60_000_000 };
    const picos = stepCostPicos(
      usage({ input_tokens: 1000, cached_input_tokens: 200, output_tokens: 500, reasoning_tokens: 100 }),
      pricing,
    );
    // 800×3 + 200×0.3 + 400×15 + 100×60 micro-dollars per million → picodollars.
    expect(picos).toBe(800n * 3_000_000n + 200n * 300_000n + 400n * 15_000_000n + 100n * 60_000_000n);
    expect(usdFromPicos(picos ?? 0n)).toBe("0.01446");
  });

  it("charges cached input at the input price and reasoning at the output price when those are unset", () => {
    const pricing = { ...sonnet, cached_input_micros_per_million_tokens: null };
    expect(stepCostUsd(usage({ input_tokens: 10, cached_input_tokens: 10, output_tokens: 4, reasoning_tokens: 4 }), pricing)).toBe(
      usdFromPicos(10n * 3_000_000n + 4n * 15_000_000n),
    );
  });

  it("is exact for one token at a price of one micro-dollar per million: a picodollar", () => {
    const pricing = { ...sonnet, input_micros_per_million_tokens: 1, output_micros_per_million_tokens: 0 };
    expect(stepCostUsd(usage({ input_tokens: 1, output_tokens: 7 }), { ...pricing, cached_input_micros_per_million_tokens: null })).toBe(
      "0.000000000001",
    );
  });

  it("is null without prices or without input and output counts, and caps details at their totals", () => {
    expect(stepCostUsd(usage({ input_tokens: 1, output_tokens: 1 }), null)).toBeNull();
    expect(stepCostUsd(usage({ output_tokens: 1 }), sonnet)).toBeNull();
    expect(stepCostUsd(usage({ input_tokens: 1 }), sonnet)).toBeNull();
    expect(stepCostUsd(usage({ input_tokens: -1, output_tokens: 1 }), sonnet)).toBeNull();
    // A provider reporting more cached than input tokens: all of the input is cached, none negative.
    expect(stepCostPicos(usage({ input_tokens: 5, cached_input_tokens: 9, output_tokens: 0 }), sonnet)).toBe(5n * 300_000n);
  });

  it("never overflows: the largest counts at the largest prices stay exact", () => {
    const max = BigInt(MAX_PRICE_MICROS);
    const top = { ...sonnet, input_micros_per_million_tokens: MAX_PRICE_MICROS, output_micros_per_million_tokens: MAX_PRICE_MICROS };
    const big = Number.MAX_SAFE_INTEGER;
    expect(stepCostPicos(usage({ input_tokens: big, output_tokens: big }), { ...top, cached_input_micros_per_million_tokens: null })).toBe(
      2n * BigInt(big) * max,
    );
  });

  it("sums without drift: the sum of the stored costs is the cost of the summed picodollars", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ i: fc.nat(2_000_000), c: fc.nat(2_000_000), o: fc.nat(100_000), r: fc.nat(100_000) }), { maxLength: 50 }),
        fc.record({ in: fc.nat(MAX_PRICE_MICROS), out: fc.nat(MAX_PRICE_MICROS), cached: fc.nat(MAX_PRICE_MICROS) }),
        (steps, p) => {
          const pricing: ModelPricing = {
            input_micros_per_million_tokens: p.in,
            output_micros_per_million_tokens: p.out,
            cached_input_micros_per_million_tokens: p.cached,
            reasoning_micros_per_million_tokens: null,
          };
          let exact = 0n;
          for (const s of steps) {
            const u = usage({ input_tokens: s.i, cached_input_tokens: s.c, output_tokens: s.o, reasoning_tokens: s.r });
            const stored = stepCostUsd(u, pricing);
            expect(stored).not.toBeNull();
            exact += picosFromUsd(stored ?? "");
            expect(picosFromUsd(stored ?? "")).toBe(stepCostPicos(u, pricing));
          }
          expect(picosFromUsd(usdFromPicos(exact))).toBe(exact);
        },
      ),
    );
  });
});

describe("dollar strings", () => {
  it("writes picodollars as dollars with at least cents and no trailing zeros beyond", () => {
    expect(usdFromPicos(0n)).toBe("0.00");
    expect(usdFromPicos(10n ** 12n * 12n)).toBe("12.00");
    expect(usdFromPicos(4_515_075_000n)).toBe("0.004515075");
    expect(usdFromPicos(1n)).toBe("0.000000000001");
    expect(() => usdFromPicos(-1n)).toThrow(RangeError);
  });

  it("reads Postgres numerics back, and refuses what no integer price can produce", () => {
    expect(picosFromUsd("0.004515075000")).toBe(4_515_075_000n);
    expect(picosFromUsd("3")).toBe(3n * 10n ** 12n);
    expect(() => picosFromUsd("0.0000000000001")).toThrow(RangeError);
    expect(() => picosFromUsd("-1")).toThrow(RangeError);
    expect(() => picosFromUsd("1e-7")).toThrow(RangeError);
  });

  it("rounds to micro-dollars once, half up", () => {
    expect(microsFromPicos(499_999n)).toBe(0);
    expect(microsFromPicos(500_000n)).toBe(1);
    expect(microsFromPicos(4_515_075_000n)).toBe(4515);
  });
});

describe("price columns", () => {
  it("round-trip, and a config without input and output prices is unpriced", () => {
    expect(pricingOf(priceColumns(sonnet))).toEqual(sonnet);
    expect(pricingOf(priceColumns(null))).toBeNull();
    expect(
      pricingOf({ inputPriceMicros: 1, outputPriceMicros: null, cachedInputPriceMicros: null, reasoningPriceMicros: null }),
    ).toBeNull();
  });
});
