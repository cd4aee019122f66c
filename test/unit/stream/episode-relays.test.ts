import { describe, expect, it } from "vitest";
import type { StreamPart } from "../../../src/wire/stream-part";
import type { BufferedPart } from "../../../src/part-buffer/episode";
import { EpisodeRelays, GATHER_MS, MAX_BURST, QUIET_TURNS } from "../../../src/stream/episode-relays";
import { episodeKey, PartBuffer, SUBSCRIBER_DEADLINE_MS } from "../../../src/part-buffer/part-buffer";

const CHAT = "0b6c1f7e-4a39-4f2e-9a52-1c1f3c1e2d10";
const key = (hv = 3, ga = 1) => episodeKey(CHAT, hv, ga);
const flush = () => new Promise((r) => setTimeout(r, 0));

function setup() {
  let t = 1_000;
  const buffer = new PartBuffer<StreamPart>({ now: () => t });
  const relays = new EpisodeRelays(buffer, () => CHAT, { coalesce: async () => {} });
  const add = (...texts: string[]) => {
    for (const text of texts) buffer.addPart(key(), { type: "text", text });
  };
  return {
    buffer,
    relays,
    add,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

/** A listener that records the bursts it got and the seqs in them. */
function recorder() {
  const bursts: (readonly BufferedPart<StreamPart>[])[] = [];
  return {
    bursts,
    listener: (burst: readonly BufferedPart<StreamPart>[]) => bursts.push(burst),
    seqs: () => bursts.flat().map((p) => p.seq),
  };
}

describe("EpisodeRelays", () => {
  it("serves every follower of an episode from one buffer subscription, with the same burst objects", async () => {
    const { buffer, relays, add } = setup();
    buffer.createEpisode(key());
    const a = recorder();
    const b = recorder();
    relays.follow(3, 1, a.listener);
    relays.follow(3, 1, b.listener);
    expect(buffer.stats().subscriptions).toBe(1);
    add("x", "y");
    await flush();
    add("z");
    await flush();
    expect(a.seqs()).toEqual([1, 2, 3]);
    expect(b.bursts).toEqual(a.bursts);
    expect(b.bursts[0]).toBe(a.bursts[0]);
  });

  it("gives a follower that joins mid-episode the parts so far, then the live ones, without gap or duplicate", async () => {
    const { buffer, relays, add } = setup();
    buffer.createEpisode(key());
    const early = recorder();
    relays.follow(3, 1, early.listener);
    add("a", "b", "c");
    await flush();
    const late = recorder();
    relays.follow(3, 1, late.listener);
    expect(late.seqs()).toEqual([1, 2, 3]);
    add("d");
    await flush();
    expect(late.seqs()).toEqual([1, 2, 3, 4]);
    expect(early.seqs()).toEqual([1, 2, 3, 4]);
  });

  it("waits for an episode that does not exist yet", async () => {
    const { buffer, relays, add } = setup();
    const r = recorder();
    relays.follow(3, 1, r.listener);
    await flush();
    expect(r.bursts).toEqual([]);
    buffer.createEpisode(key());
    add("a");
    await flush();
    expect(r.seqs()).toEqual([1]);
  });

  it("closes the subscription and forgets the episode when its last follower leaves", async () => {
    const { buffer, relays } = setup();
    buffer.createEpisode(key());
    const stopA = relays.follow(3, 1, recorder().listener);
    const stopB = relays.follow(3, 1, recorder().listener);
    relays.follow(3, 2, recorder().listener);
    expect(relays.size).toBe(2);
    stopA();
    stopA(); // idempotent
    expect(buffer.stats().subscriptions).toBe(2);
    stopB();
    expect(relays.size).toBe(1);
    expect(buffer.stats().subscriptions).toBe(1);
  });

  it("starts over when the buffer closes its reader as slow, handing out only what is new", async () => {
    const { buffer, relays, add, advance } = setup();
    buffer.createEpisode(key());
    const r = recorder();
    relays.follow(3, 1, r.listener);
    add("a", "b");
    await flush();
    // Adding wakes the parked relay with part 3 but it runs later (a microtask); part 4 then waits
    // past the subscriber deadline before it does, as when the isolate is blocked.
    add("c", "d");
    advance(SUBSCRIBER_DEADLINE_MS);
    expect(buffer.tick().slowClosed).toBe(1);
    await flush();
    add("e");
    await flush();
    expect(r.seqs()).toEqual([1, 2, 3, 4, 5]);
    expect(buffer.stats().subscriptions).toBe(1);
  });

  it("keeps delivering to the others when one follower throws", async () => {
    const { buffer, relays, add } = setup();
    buffer.createEpisode(key());
    relays.follow(3, 1, () => {
      throw new Error("boom");
    });
    const r = recorder();
    relays.follow(3, 1, r.listener);
    add("a");
    await flush();
    expect(r.seqs()).toEqual([1]);
  });
});

describe("EpisodeRelays with the default coalescing", () => {
  it("waits for the current task to end, so parts added meanwhile go out in one burst", async () => {
    const buffer = new PartBuffer<StreamPart>({ now: () => 1_000 });
    const relays = new EpisodeRelays(buffer, () => CHAT);
    buffer.createEpisode(key());
    const r = recorder();
    relays.follow(3, 1, r.listener);
    buffer.addPart(key(), { type: "text", text: "a" });
    await Promise.resolve(); // the relay wakes with part 1 in a microtask...
    await Promise.resolve();
    buffer.addPart(key(), { type: "text", text: "b" }); // ...and part 2 lands before the task ends
    await flush();
    await flush();
    expect(r.bursts.map((b) => b.map((p) => p.seq))).toEqual([[1, 2]]);
  });
});

describe("EpisodeRelays gathering a busy stream", () => {
  /**
   * A relay on a scripted event loop. A turn first runs the relay's turn if it is waiting for one
   * (a timer set in an earlier turn), then the clock moves and `parts` parts arrive (the I/O).
   */
  function stepped() {
    let t = 1_000;
    const buffer = new PartBuffer<StreamPart>({ now: () => t });
    let waiting: (() => void)[] = [];
    let sleepers: { at: number; resolve: () => void }[] = [];
    const relays = new EpisodeRelays(buffer, () => CHAT, {
      now: () => t,
      coalesce: () => new Promise<void>((resolve) => waiting.push(resolve)),
      sleep: (ms) => new Promise<void>((resolve) => sleepers.push({ at: t + ms, resolve })),
    });
    buffer.createEpisode(key());
    let added = 0;
    let sendMs = 0;
    const turn = async (parts: number, ms = 1) => {
      const due = [...waiting, ...sleepers.filter((s) => s.at <= t).map((s) => s.resolve)];
      waiting = [];
      sleepers = sleepers.filter((s) => s.at > t);
      for (const resolve of due) resolve();
      await flush();
      t += ms;
      for (let i = 0; i < parts; i++) buffer.addPart(key(), { type: "text", text: `${++added}` });
      await flush();
    };
    const turns = async (count: number, parts: number, ms = 1) => {
      for (let i = 0; i < count; i++) await turn(parts, ms);
    };
    /** Each burst's sending takes `ms` (the next clock reading shows them). */
    const sendTakes = (ms: number) => {
      sendMs = ms;
    };
    const follow = () =>
      relays.follow(3, 1, (burst) => {
        listener(burst);
        t += sendMs;
      });
    return { relays, turns, sendTakes, follow, bursts };
  }
  const bursts: number[][] = [];
  const listener = (burst: readonly BufferedPart<StreamPart>[]) => bursts.push(burst.map((p) => p.seq));
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  it("sends the first part after one turn, then gathers a stream that brings a part every turn", async () => {
    bursts.length = 0;
    const s = stepped();
    s.follow();
    // As under workerd 1.20261117: the model's buffered chunks are read one per turn, and the
    // relay's turn falls between two reads.
    await s.turns(11, 1);
    await s.turns(QUIET_TURNS + 1, 0);
    expect(bursts).toEqual([[1], range(2, 11)]);
  });

  it("does not hold a part that comes after a quiet spell", async () => {
    bursts.length = 0;
    const s = stepped();
    s.follow();
    await s.turns(2, 1);
    await s.turns(4, 0, GATHER_MS);
    await s.turns(1, 1);
    await s.turns(QUIET_TURNS + 1, 0);
    expect(bursts).toEqual([[1], range(2, 2), [3]]);
  });

  it("sends what it gathered once GATHER_MS have passed since its first turn", async () => {
    bursts.length = 0;
    const s = stepped();
    s.follow();
    await s.turns(17, 1, 4);
    await s.turns(QUIET_TURNS + 1, 0);
    // After the quiet first burst, each busy one goes out 16 ms (four 4-ms turns) after the part
    // that woke it, with the parts of those turns; the last one after the stream went quiet.
    expect(bursts).toEqual([[1], range(2, 6), range(7, 11), range(12, 16), [17]]);
  });

  it("when a send takes GATHER_MS or more, sleeps GATHER_MS and takes what came, quiet turns or not", async () => {
    bursts.length = 0;
    const s = stepped();
    s.follow();
    // A thousand sockets: each burst's sending takes 40 ms, while parts come every other turn,
    // 2 ms apart (they were waiting in the network behind the send).
    s.sendTakes(40);
    for (let i = 0; i < 15; i++) {
      await s.turns(1, 1, 2);
      await s.turns(1, 0, 2);
    }
    await s.turns(QUIET_TURNS + 10, 0, 2);
    expect(bursts.flat()).toEqual(range(1, 15));
    // The first burst after the quiet start goes alone; each later one holds what 16 ms brought.
    expect(bursts[0]).toEqual([1]);
    expect(bursts.length).toBeLessThanOrEqual(5);
    expect(bursts.slice(1, -1).every((b) => b.length >= 3)).toBe(true);
  });

  it("does not sleep for a part that comes long after a slow send", async () => {
    bursts.length = 0;
    const s = stepped();
    s.follow();
    s.sendTakes(40);
    await s.turns(2, 1);
    await s.turns(3, 0, GATHER_MS);
    await s.turns(1, 1);
    await s.turns(1, 0);
    // Part 2 came right behind the slow send and waited out the 16 ms (alone: nothing else came);
    // part 3, after a quiet spell, goes out after one turn.
    expect(bursts).toEqual([[1], [2], [3]]);
  });

  it("sends at most MAX_BURST parts a burst, however fast the stream comes", async () => {
    bursts.length = 0;
    const s = stepped();
    s.follow();
    await s.turns(10, 100, 0);
    await s.turns(QUIET_TURNS + 1, 0);
    expect(bursts.map((b) => b.length)).toEqual([100, MAX_BURST, 1_000 - 100 - MAX_BURST]);
    expect(bursts.flat()).toEqual(range(1, 1_000));
  });
});
