import { describe, expect, it } from "vitest";
import { CapacityTimeoutError, DispatchLimiter } from "../../../src/hooks/limiter";

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("DispatchLimiter", () => {
  it("lets admission dispatches hold only their share, keeping the rest for admitted work", async () => {
    const limiter = new DispatchLimiter(4, 0.5);
    expect(limiter.admissionCap).toBe(2);
    const a1 = await limiter.acquire("admission", 1000);
    await limiter.acquire("admission", 1000);
    let third = false;
    const pending = limiter.acquire("admission", 1000).then((release) => {
      third = true;
      return release;
    });
    await tick();
    expect(third).toBe(false);
    // The burst of submissions cannot take the slots admitted work needs.
    const w1 = await limiter.acquire("admitted", 1000);
    await limiter.acquire("admitted", 1000);
    expect(limiter.inUse).toBe(4);
    w1();
    await tick();
    // A free slot, but admission is still at its share: the admission waiter stays queued.
    expect(third).toBe(false);
    a1();
    const releaseThird = await pending;
    expect(third).toBe(true);
    expect(limiter.admissionInUse).toBe(2);
    releaseThird();
    expect(limiter.admissionInUse).toBe(1);
  });

  it("serves an admitted waiter past a blocked admission waiter", async () => {
    const limiter = new DispatchLimiter(2, 0.5);
    const a = await limiter.acquire("admission", 1000);
    const w = await limiter.acquire("admitted", 1000);
    const order: string[] = [];
    const noted = (name: string) => (release: () => void) => {
      order.push(name);
      return release;
    };
    const admission = limiter.acquire("admission", 1000).then(noted("admission"));
    const admitted = limiter.acquire("admitted", 1000).then(noted("admitted"));
    w();
    (await admitted)();
    expect(order).toEqual(["admitted"]);
    a();
    (await admission)();
    expect(order).toEqual(["admitted", "admission"]);
    expect(limiter.inUse).toBe(0);
  });

  it("fails a waiter that gets no slot within its deadline, and forgets it", async () => {
    const limiter = new DispatchLimiter(1, 1);
    const held = await limiter.acquire("admitted", 1000);
    await expect(limiter.acquire("admitted", 20)).rejects.toBeInstanceOf(CapacityTimeoutError);
    expect(limiter.waiting).toBe(0);
    held();
    held(); // releasing twice frees one slot only
    expect(limiter.inUse).toBe(0);
  });

  it("gives admission at least one slot", () => {
    expect(new DispatchLimiter(1, 0.1).admissionCap).toBe(1);
  });
});
