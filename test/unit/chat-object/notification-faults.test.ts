import { afterEach, describe, expect, it, vi } from "vitest";
import { draws, NotificationFaults, parseFaultPlan } from "../../support/notification-faults";

const plan = (rates: string) => parseFaultPlan(`seed=7,${rates}`);

/** An injector whose deliveries and reported faults are recorded. */
function injector(rates: string) {
  const delivered: string[] = [];
  const faults: string[] = [];
  const pending: Promise<unknown>[] = [];
  const f = new NotificationFaults(
    plan(rates),
    (p) => pending.push(p),
    (fault, fields) => faults.push(`${fault}:${fields.snapshot_version}`),
  );
  const send = (v: number) => f.send("update", "c", v, () => delivered.push(`v${v}`));
  return { f, delivered, faults, send, pending };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("notification faults", () => {
  it("reads a plan, with the issue's rates by default, and refuses a bad one", () => {
    expect(parseFaultPlan("seed=3")).toEqual({
      seed: 3,
      drop: 0.5,
      duplicate: 0.2,
      reorder: 0.2,
      delay: 0.2,
      maxDelayMs: 3_000,
      holdMs: 1_000,
    });
    expect(parseFaultPlan("seed=3, drop=0, max_delay_ms=10").maxDelayMs).toBe(10);
    expect(() => parseFaultPlan("drop=0.5")).toThrow("seed is required");
    expect(() => parseFaultPlan("seed=1,drop=2")).toThrow("at most 1");
    expect(() => parseFaultPlan("seed=1,reorder=0.6,delay=0.6")).toThrow("at most 1");
    expect(() => parseFaultPlan("seed=1,lose=0.5")).toThrow('bad item "lose=0.5"');
  });

  it("draws the same numbers for the same seed and key, others for another", () => {
    const a = draws(1, "update:c:3:1");
    const b = draws(1, "update:c:3:1");
    const seq = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(seq);
    expect(draws(2, "update:c:3:1")()).not.toBe(seq[0]);
    expect(draws(1, "update:c:3:2")()).not.toBe(seq[0]);
    for (const x of seq) expect(x >= 0 && x < 1).toBe(true);
  });

  it("passes everything through untouched with every rate at 0", () => {
    const { delivered, faults, send } = injector("drop=0,duplicate=0,reorder=0,delay=0");
    for (let v = 1; v <= 50; v++) send(v);
    expect(delivered).toEqual(Array.from({ length: 50 }, (_, i) => `v${i + 1}`));
    expect(faults).toEqual([]);
  });

  it("drops about the drop rate, and gives a message the same fate under the same seed", () => {
    const first = injector("drop=0.5,duplicate=0,reorder=0,delay=0");
    const second = injector("drop=0.5,duplicate=0,reorder=0,delay=0");
    for (let v = 1; v <= 1_000; v++) {
      first.send(v);
      second.send(1_001 - v);
    }
    expect(first.delivered.length).toBeGreaterThan(430);
    expect(first.delivered.length).toBeLessThan(570);
    expect([...second.delivered].sort()).toEqual([...first.delivered].sort());
  });

  it("duplicates, and a held message goes out right after the next one", () => {
    const dup = injector("drop=0,duplicate=1,reorder=0,delay=0");
    dup.send(1);
    expect(dup.delivered).toEqual(["v1", "v1"]);
    expect(dup.faults).toEqual(["duplicate:1"]);

    vi.useFakeTimers();
    const held = injector("drop=0,duplicate=0,reorder=1,delay=0,hold_ms=1000");
    held.send(1);
    expect(held.delivered).toEqual([]);
    held.send(2); // itself held; releases 1
    expect(held.delivered).toEqual(["v1"]);
    vi.advanceTimersByTime(1_000); // nothing follows 2: it goes out when its hold ends
    expect(held.delivered).toEqual(["v1", "v2"]);
    expect(held.pending).toHaveLength(2);
  });

  it("delays a message by at most max_delay_ms", () => {
    vi.useFakeTimers();
    const { delivered, faults, send } = injector("drop=0,duplicate=0,reorder=0,delay=1,max_delay_ms=500");
    send(1);
    expect(delivered).toEqual([]);
    expect(faults).toEqual(["delay:1"]);
    vi.advanceTimersByTime(500);
    expect(delivered).toEqual(["v1"]);
  });
});
