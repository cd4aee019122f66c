import { describe, expect, it } from "vitest";
import { AlarmClock } from "../../../durable-objects/chat-object/alarm-clock";

/** A clock on a hand-moved time, recording every alarm it sets. */
function setup(sources: (() => number | null)[] = []) {
  let now = 1_000;
  const alarms: number[] = [];
  const clock = new AlarmClock({ now: () => now, setAlarm: (at) => alarms.push(at), sources });
  return {
    clock,
    alarms,
    advance(ms: number) {
      now += ms;
      clock.fired(now);
    },
  };
}

const settled = async <T>(p: Promise<T>) => {
  let state = "pending";
  p.then(
    () => (state = "resolved"),
    () => (state = "rejected"),
  );
  await new Promise((r) => setTimeout(r, 0));
  return state;
};

describe("AlarmClock", () => {
  it("arms for a sleeper and wakes it only once the alarm fires at or after its instant", async () => {
    const { clock, alarms, advance } = setup();
    const slept = clock.sleep(500, new AbortController().signal);
    expect(alarms).toEqual([1_500]);
    advance(499);
    expect(await settled(slept)).toBe("pending");
    advance(1);
    expect(await settled(slept)).toBe("resolved");
    expect(clock.sleeping).toBe(0);
  });

  it("keeps the alarm at the earliest of every source and sleeper, setting it only when it moves earlier", () => {
    let tick: number | null = 3_000;
    const { clock, alarms } = setup([() => tick, () => null]);
    clock.arm();
    void clock.sleep(5_000, new AbortController().signal);
    void clock.sleep(1_000, new AbortController().signal);
    expect(alarms).toEqual([3_000, 2_000]);
    tick = 1_500;
    clock.arm();
    expect(alarms).toEqual([3_000, 2_000, 1_500]);
    expect(clock.next()).toBe(1_500);
  });

  it("re-arms after firing for what remains, and not at all when nothing waits", async () => {
    const { clock, alarms, advance } = setup();
    const first = clock.sleep(100, new AbortController().signal);
    const second = clock.sleep(300, new AbortController().signal);
    advance(100);
    clock.arm();
    expect(await settled(first)).toBe("resolved");
    expect(await settled(second)).toBe("pending");
    expect(alarms).toEqual([1_100, 1_300]);
    advance(200);
    clock.arm();
    expect(await settled(second)).toBe("resolved");
    expect(alarms).toEqual([1_100, 1_300]);
    expect(clock.next()).toBeNull();
  });

  it("rejects an aborted sleeper with the signal's reason and forgets it", async () => {
    const { clock, advance } = setup();
    const controller = new AbortController();
    const slept = clock.sleep(100, controller.signal);
    controller.abort(new Error("superseded"));
    await expect(slept).rejects.toThrow("superseded");
    expect(clock.sleeping).toBe(0);
    advance(1_000);
    await expect(clock.sleep(1, AbortSignal.abort(new Error("already")))).rejects.toThrow("already");
  });

  it("does not lose a sleeper added while the alarm handler runs", async () => {
    const { clock, alarms, advance } = setup();
    advance(0); // the handler starts: nothing is armed
    const slept = clock.sleep(50, new AbortController().signal); // a task sleeps mid-handler
    clock.arm(); // the handler ends
    expect(alarms).toEqual([1_050]);
    advance(50);
    expect(await settled(slept)).toBe("resolved");
  });

  it("arms a deadline that is already due one millisecond ahead, never at the instant the handler runs", () => {
    let poll: number | null = 1_000;
    const { clock, alarms, advance } = setup([() => poll]);
    clock.arm();
    expect(alarms).toEqual([1_001]);
    advance(1); // the handler starts at 1_001; the poll is still due while it runs
    clock.arm(); // something mid-handler (the part buffer) re-arms before the poll moves on
    expect(alarms).toEqual([1_001, 1_002]);
    poll = 2_001;
    clock.arm(); // the handler ends: the alarm at 1_002 is set, and fires before the poll's
    expect(alarms).toEqual([1_001, 1_002]);
    advance(1);
    clock.arm();
    expect(alarms).toEqual([1_001, 1_002, 2_001]);
  });
});
