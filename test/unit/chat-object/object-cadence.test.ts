/** ObjectCadence: when a chat object's chat is idle, and the intervals of its periodic reads then. */
import { describe, expect, it } from "vitest";
import { ObjectCadence } from "../../../durable-objects/chat-object/object-cadence";

function cadence(opts: { idleMs?: number } = {}) {
  let now = 0;
  let busy = false;
  const wakes: number[] = [];
  const c = new ObjectCadence({
    now: () => now,
    busy: () => busy,
    idleMs: () => opts.idleMs ?? 60_000,
    woke: () => wakes.push(now),
  });
  return { c, wakes, at: (ms: number) => (now = ms), setBusy: (b: boolean) => (busy = b) };
}

describe("ObjectCadence", () => {
  it("starts idle: an instance woken by its alarm has seen no sign of life", () => {
    const { c } = cadence();
    expect(c.idle(0)).toBe(true);
    expect(c.intervalMs(10_000, 0)).toBe(60_000);
  });

  it("is active for the idle interval after a sign of life, then idle again", () => {
    const { c, wakes, at } = cadence();
    at(1_000);
    c.touched();
    expect(wakes).toEqual([1_000]);
    expect(c.idle(60_999)).toBe(false);
    expect(c.intervalMs(10_000, 60_999)).toBe(10_000);
    expect(c.idle(61_000)).toBe(true);
    // A read slower than the idle interval keeps its own.
    expect(c.intervalMs(90_000, 61_000)).toBe(90_000);
    at(70_000);
    c.touched();
    expect(wakes).toEqual([1_000, 70_000]);
  });

  it("is never idle while the worker holds the chat, or with CHAT_STREAM_IDLE_POLL_MS=0", () => {
    const held = cadence();
    held.setBusy(true);
    expect(held.c.idle(1_000_000)).toBe(false);
    const never = cadence({ idleMs: 0 });
    expect(never.c.idle(1_000_000)).toBe(false);
    expect(never.c.intervalMs(10_000, 1_000_000)).toBe(10_000);
  });
});
