import { describe, expect, it } from "vitest";
import { ChildWaiters } from "../../../src/subagents/child-waiters";

/** A real timer as the object's alarm clock would be: resolves after ms, rejects on abort. */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

const never = new AbortController().signal;

describe("ChildWaiters", () => {
  it("a report during the wait ends it at once", async () => {
    const waiters = new ChildWaiters(sleep);
    const watch = waiters.watch(["a"]);
    const started = Date.now();
    const result = watch.next(10_000, never);
    setTimeout(() => waiters.report("a"), 20);
    expect(await result).toBe("reported");
    expect(Date.now() - started).toBeLessThan(2_000);
    watch.close();
  });

  it("a report between the watch and the wait is not lost", async () => {
    const waiters = new ChildWaiters(sleep);
    const watch = waiters.watch(["a"]);
    waiters.report("a");
    expect(await watch.next(10_000, never)).toBe("reported");
    // Consumed: the next wait runs to its timeout.
    expect(await watch.next(30, never)).toBe("timeout");
    watch.close();
  });

  it("ignores other children's reports and times out", async () => {
    const waiters = new ChildWaiters(sleep);
    const watch = waiters.watch(["a"]);
    const result = watch.next(50, never);
    waiters.report("b");
    expect(await result).toBe("timeout");
    watch.close();
  });

  it("a cancelled tool call rejects with the signal's reason; close forgets the watch", async () => {
    const waiters = new ChildWaiters(sleep);
    const watch = waiters.watch(["a", "b"]);
    expect(waiters.size).toBe(2);
    const abort = new AbortController();
    const result = watch.next(10_000, abort.signal);
    abort.abort(new Error("turn cancelled"));
    await expect(result).rejects.toThrow("turn cancelled");
    watch.close();
    expect(waiters.size).toBe(0);
    waiters.report("a"); // no listener left: nothing happens
  });
});
