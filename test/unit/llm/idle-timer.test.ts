import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { IdleTimer } from "../../../src/llm/idle-timer";

describe("IdleTimer", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("aborts once nothing reset it for the whole window", () => {
    const timer = new IdleTimer(1_000);
    vi.advanceTimersByTime(999);
    expect(timer.fired).toBe(false);
    vi.advanceTimersByTime(1);
    expect(timer.fired).toBe(true);
    const reason = timer.signal!.reason as DOMException;
    expect(reason).toBeInstanceOf(DOMException);
    expect(reason.name).toBe("TimeoutError");
  });

  it("counts the window from the last reset, however many came before", () => {
    const timer = new IdleTimer(1_000);
    for (let i = 0; i < 50; i++) {
      vi.advanceTimersByTime(100);
      timer.reset();
    }
    expect(timer.fired).toBe(false);
    vi.advanceTimersByTime(999);
    expect(timer.fired).toBe(false);
    vi.advanceTimersByTime(1);
    expect(timer.fired).toBe(true);
  });

  it("keeps one timer however often it is reset", () => {
    const timer = new IdleTimer(1_000);
    for (let i = 0; i < 100; i++) timer.reset();
    expect(vi.getTimerCount()).toBe(1);
    timer.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("never fires after stop, nor when reset after it", () => {
    const timer = new IdleTimer(1_000);
    timer.stop();
    timer.reset();
    vi.advanceTimersByTime(5_000);
    expect(timer.fired).toBe(false);
  });

  it("is inert without a window", () => {
    const timer = new IdleTimer(undefined);
    timer.reset();
    expect(timer.signal).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});
