import { describe, expect, it } from "vitest";
import {
  CLOSED_EPISODE_TTL_MS,
  EpisodeClosedError,
  EpisodeExistsError,
  EpisodeFullError,
  EpisodeNotFoundError,
  type EpisodeKey,
  episodeKey,
  isPartBufferError,
  MAX_EPISODE_BYTES,
  PartBuffer,
  type PartBufferOptions,
  type PartSubscription,
  SUBSCRIBER_DEADLINE_MS,
  serializedPartBytes,
  utf8ByteLength,
} from "../../../src/part-buffer/part-buffer";

const CHAT = "0b6c1f7e-4a39-4f2e-9a52-1c1f3c1e2d10";
const OTHER_CHAT = "5d1f6b1a-93c4-4a7e-8f0e-2b9d8f6a7c31";
const T0 = 1_700_000_000_000;

function key(historyVersion = 1, generationAttempt = 0, chatId = CHAT): EpisodeKey {
  return episodeKey(chatId, historyVersion, generationAttempt);
}

interface Harness {
  buffer: PartBuffer<{ text: string }>;
  advance(ms: number): number;
  now(): number;
  requested: number[];
}

function harness(options: Partial<PartBufferOptions> = {}): Harness {
  let t = T0;
  const requested: number[] = [];
  const buffer = new PartBuffer<{ text: string }>({ now: () => t, requestTick: (at) => requested.push(at), ...options });
  return {
    buffer,
    requested,
    now: () => t,
    advance(ms: number) {
      t += ms;
      return t;
    },
  };
}

const part = (text: string) => ({ text });

/** Lets every pending microtask and promise callback run. */
function flush(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await flush();
  return settled;
}

/** Reads a subscription to its end: the seqs and texts it yielded and its close reason. */
async function drain(subscription: PartSubscription<{ text: string }>) {
  const seqs: number[] = [];
  const texts: string[] = [];
  for await (const entry of subscription) {
    seqs.push(entry.seq);
    texts.push(entry.part.text);
  }
  return { seqs, texts, reason: subscription.closedReason };
}

function expectError<E extends Error>(fn: () => unknown, type: new (...args: never[]) => E): E {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as E;
  }
  throw new Error(`expected ${type.name}, nothing was thrown`);
}

describe("episodes: create and close", () => {
  it("creates an episode once; a second create of the same key throws EpisodeExistsError", () => {
    const { buffer } = harness();
    buffer.createEpisode(key(3, 1));
    const error = expectError(() => buffer.createEpisode(key(3, 1)), EpisodeExistsError);
    expect(error.code).toBe("episode_exists");
    expect(error.key).toEqual(key(3, 1));
    expect(isPartBufferError(error)).toBe(true);
    // Another attempt, history version or chat is another episode.
    buffer.createEpisode(key(3, 2));
    buffer.createEpisode(key(4, 1));
    buffer.createEpisode(key(3, 1, OTHER_CHAT));
    expect(buffer.stats().episodes).toBe(4);
  });

  it("closes idempotently: a second close changes nothing and does not throw", () => {
    const h = harness();
    h.buffer.createEpisode(key());
    h.buffer.addPart(key(), part("a"));
    h.buffer.closeEpisode(key());
    const closedAt = h.now();
    h.advance(5_000);
    h.buffer.closeEpisode(key());
    const info = h.buffer.episodeInfo(key());
    expect(info?.closedAt).toBe(closedAt);
    expect(info?.partCount).toBe(1);
  });

  it("closing a missing episode creates it closed: create then fails, add fails as closed, parts are empty", () => {
    const h = harness();
    h.buffer.closeEpisode(key(7, 2));
    expect(h.buffer.episodeInfo(key(7, 2))).toMatchObject({ closedAt: h.now(), partCount: 0 });
    expect(h.buffer.getParts(key(7, 2))).toEqual([]);
    expectError(() => h.buffer.createEpisode(key(7, 2)), EpisodeExistsError);
    expectError(() => h.buffer.addPart(key(7, 2), part("late")), EpisodeClosedError);
  });

  it("rejects malformed keys", () => {
    const { buffer } = harness();
    expect(() => buffer.createEpisode({ chatId: "", historyVersion: 1, generationAttempt: 0 })).toThrow(TypeError);
    expect(() => buffer.createEpisode({ chatId: CHAT, historyVersion: -1, generationAttempt: 0 })).toThrow(RangeError);
    expect(() => buffer.createEpisode({ chatId: CHAT, historyVersion: 1, generationAttempt: 1.5 })).toThrow(RangeError);
  });
});

describe("addPart", () => {
  it("numbers parts from seq 1 contiguously and getParts returns them in order", () => {
    const { buffer } = harness();
    buffer.createEpisode(key());
    expect(buffer.addPart(key(), part("a"))).toBe(1);
    expect(buffer.addPart(key(), part("b"))).toBe(2);
    expect(buffer.addPart(key(), part("c"))).toBe(3);
    expect(buffer.getParts(key()).map((p) => [p.seq, p.part.text])).toEqual([
      [1, "a"],
      [2, "b"],
      [3, "c"],
    ]);
  });

  it("throws EpisodeNotFoundError for an episode never created", () => {
    const { buffer } = harness();
    buffer.createEpisode(key(1, 0));
    const error = expectError(() => buffer.addPart(key(1, 1), part("x")), EpisodeNotFoundError);
    expect(error.code).toBe("episode_not_found");
    expect(error.key).toEqual(key(1, 1));
  });

  it("throws EpisodeClosedError after the episode is closed and keeps the parts it had", () => {
    const { buffer } = harness();
    buffer.createEpisode(key());
    buffer.addPart(key(), part("a"));
    buffer.closeEpisode(key());
    expect(expectError(() => buffer.addPart(key(), part("b")), EpisodeClosedError).code).toBe("episode_closed");
    expect(buffer.getParts(key()).map((p) => p.part.text)).toEqual(["a"]);
  });

  it("throws EpisodeFullError past the cap and stays full, even for a part that would fit", () => {
    const { buffer } = harness({ maxEpisodeBytes: 100 });
    buffer.createEpisode(key());
    buffer.addPart(key(), part("x".repeat(60))); // {"text":"…"} = 71 bytes
    const error = expectError(() => buffer.addPart(key(), part("y".repeat(30))), EpisodeFullError);
    expect(error).toMatchObject({ code: "episode_full", bytes: 71, partBytes: 41, maxBytes: 100 });
    // 11 bytes would fit under 100, but accepting it would leave a hole in the content.
    expectError(() => buffer.addPart(key(), part("")), EpisodeFullError);
    expect(buffer.episodeInfo(key())).toMatchObject({ partCount: 1, bytes: 71, full: true });
  });

  it("caps an episode at 1,000,000 bytes by default: a total of exactly the cap is accepted, one byte more is not", () => {
    const { buffer } = harness();
    expect(MAX_EPISODE_BYTES).toBe(1_000_000);
    // A JSON string of n ASCII characters serializes to n + 2 bytes.
    buffer.createEpisode(key(1, 0));
    buffer.addPart(key(1, 0), "a".repeat(499_998) as never); // 500,000 bytes
    buffer.addPart(key(1, 0), "b".repeat(499_998) as never); // 1,000,000 bytes in total
    expect(buffer.episodeInfo(key(1, 0))).toMatchObject({ partCount: 2, bytes: 1_000_000, full: false });
    expectError(() => buffer.addPart(key(1, 0), "" as never), EpisodeFullError); // 2 more bytes

    buffer.createEpisode(key(1, 1));
    const error = expectError(() => buffer.addPart(key(1, 1), "c".repeat(999_999) as never), EpisodeFullError);
    expect(error).toMatchObject({ bytes: 0, partBytes: 1_000_001 });
    expect(buffer.episodeInfo(key(1, 1))?.partCount).toBe(0);
  });

  it("measures parts in UTF-8 bytes of their JSON, as TextEncoder counts them", () => {
    const encoder = new TextEncoder();
    for (const value of [{ text: "plain" }, { text: "é ü ß" }, { text: "日本語" }, { text: "🙂 emoji" }, { text: 'tab\tquote"' }]) {
      expect(serializedPartBytes(value)).toBe(encoder.encode(JSON.stringify(value)).length);
    }
    expect(utf8ByteLength("\ud83d")).toBe(encoder.encode("\ud83d").length); // lone surrogate → U+FFFD
    const { buffer } = harness({ maxEpisodeBytes: 14 });
    buffer.createEpisode(key());
    buffer.addPart(key(), part("é")); // {"text":"é"} = 13 bytes, 12 UTF-16 units
    expect(buffer.episodeInfo(key())?.bytes).toBe(13);
    // 13 + 2 = 15 bytes exceeds 14; counted in UTF-16 units (12 + 2 = 14) it would have fit.
    expectError(() => buffer.addPart(key(), "" as never), EpisodeFullError);
  });

  it("refuses a part JSON cannot represent with a TypeError, not a buffer error", () => {
    const { buffer } = harness();
    buffer.createEpisode(key());
    expect(() => buffer.addPart(key(), undefined as never)).toThrow(TypeError);
    expect(() => buffer.addPart(key(), { n: 1n } as never)).toThrow(TypeError);
    expect(buffer.episodeInfo(key())?.partCount).toBe(0);
  });
});

describe("getParts", () => {
  it("throws EpisodeNotFoundError for a missing episode", () => {
    const { buffer } = harness();
    expectError(() => buffer.getParts(key()), EpisodeNotFoundError);
  });

  it("returns a snapshot that later adds do not change", () => {
    const { buffer } = harness();
    buffer.createEpisode(key());
    buffer.addPart(key(), part("a"));
    const snapshot = buffer.getParts(key());
    buffer.addPart(key(), part("b"));
    expect(snapshot).toHaveLength(1);
    expect(buffer.getParts(key())).toHaveLength(2);
  });
});

describe("model invocation stamp", () => {
  it("startModelInvocation throws EpisodeNotFoundError on a missing episode and EpisodeClosedError on a closed one", () => {
    const { buffer } = harness();
    expectError(() => buffer.startModelInvocation(key()), EpisodeNotFoundError);
    buffer.closeEpisode(key());
    expectError(() => buffer.startModelInvocation(key()), EpisodeClosedError);
  });

  it("an episode never stamped has no model invocation instant (the spec's zero time)", () => {
    const { buffer } = harness();
    buffer.createEpisode(key());
    expect(buffer.episodeInfo(key())?.modelInvokedAt).toBeNull();
  });

  it("stamps the clock's instant, keeps the first stamp, and the stamp survives the close", () => {
    const h = harness();
    h.buffer.createEpisode(key());
    h.advance(250);
    expect(h.buffer.startModelInvocation(key())).toBe(T0 + 250);
    h.advance(1_000);
    expect(h.buffer.startModelInvocation(key())).toBe(T0 + 250);
    expect(h.buffer.episodeInfo(key())?.modelInvokedAt).toBe(T0 + 250);
    h.buffer.closeEpisode(key());
    expect(h.buffer.episodeInfo(key())?.modelInvokedAt).toBe(T0 + 250);
  });
});

describe("subscribe", () => {
  it("waits for an episode that does not exist yet, then yields every part and ends when it closes", async () => {
    const { buffer } = harness();
    const subscription = buffer.subscribe(key());
    const first = subscription.next();
    expect(await isSettled(first)).toBe(false);
    buffer.createEpisode(key());
    expect(await isSettled(first)).toBe(false);
    buffer.addPart(key(), part("a"));
    expect(await first).toEqual({ done: false, value: { seq: 1, part: { text: "a" }, addedAt: T0 } });
    buffer.addPart(key(), part("b"));
    buffer.addPart(key(), part("c"));
    buffer.closeEpisode(key());
    const rest = await drain(subscription);
    expect(rest).toEqual({ seqs: [2, 3], texts: ["b", "c"], reason: "ended" });
    expect(await subscription.done).toBe("ended");
  });

  it("a subscription waiting for an episode that is created closed ends with nothing", async () => {
    const { buffer } = harness();
    const subscription = buffer.subscribe(key());
    buffer.closeEpisode(key());
    expect(await drain(subscription)).toEqual({ seqs: [], texts: [], reason: "ended" });
  });

  it("after the close, yields all parts from seq 1 and then ends", async () => {
    const { buffer } = harness();
    buffer.createEpisode(key());
    for (const text of ["a", "b", "c", "d"]) buffer.addPart(key(), part(text));
    buffer.closeEpisode(key());
    const result = await drain(buffer.subscribe(key()));
    expect(result).toEqual({ seqs: [1, 2, 3, 4], texts: ["a", "b", "c", "d"], reason: "ended" });
    expect(buffer.episodeInfo(key())?.subscriberCount).toBe(0);
  });

  it("mid-stream, yields the backlog from seq 1 then live parts with no gap and no duplicate", async () => {
    const { buffer } = harness();
    buffer.createEpisode(key());
    buffer.addPart(key(), part("a"));
    buffer.addPart(key(), part("b"));
    const subscription = buffer.subscribe(key());
    const seen: number[] = [];
    const take = async () => {
      const result = await subscription.next();
      if (!result.done) seen.push(result.value.seq);
      return result;
    };
    await take();
    buffer.addPart(key(), part("c")); // added while the backlog is half read
    await take();
    await take();
    const parked = take(); // caught up: waits for a live part
    expect(await isSettled(parked)).toBe(false);
    buffer.addPart(key(), part("d"));
    await parked;
    buffer.addPart(key(), part("e"));
    buffer.closeEpisode(key());
    const rest = await drain(subscription);
    expect(rest.reason).toBe("ended");
    expect([...seen, ...rest.seqs]).toEqual([1, 2, 3, 4, 5]);
    expect(subscription.delivered).toBe(5);
  });

  it("several subscribers see identical sequences and share the same part objects", async () => {
    const { buffer } = harness();
    const early = buffer.subscribe(key());
    buffer.createEpisode(key());
    buffer.addPart(key(), part("a"));
    const middle = buffer.subscribe(key());
    buffer.addPart(key(), part("b"));
    const reads = [drain(early), drain(middle)];
    buffer.addPart(key(), part("c"));
    await flush();
    buffer.addPart(key(), part("d"));
    buffer.closeEpisode(key());
    const late = buffer.subscribe(key());
    const results = await Promise.all([...reads, drain(late)]);
    for (const result of results) expect(result).toEqual({ seqs: [1, 2, 3, 4], texts: ["a", "b", "c", "d"], reason: "ended" });

    // No copies: every reader gets the very entry the buffer holds.
    const again = buffer.subscribe(key());
    const fromSubscription = await again.next();
    expect(fromSubscription.done).toBe(false);
    expect(fromSubscription.value).toBe(buffer.getParts(key())[0]);
    again.close();
  });

  it("close() and break out of for-await unsubscribe and resolve a pending next()", async () => {
    const { buffer } = harness();
    buffer.createEpisode(key());
    const a = buffer.subscribe(key());
    const pending = a.next();
    a.close();
    expect(await pending).toEqual({ done: true, value: "unsubscribed" });
    expect(a.closedReason).toBe("unsubscribed");

    const b = buffer.subscribe(key());
    buffer.addPart(key(), part("a"));
    buffer.addPart(key(), part("b"));
    for await (const entry of b) {
      expect(entry.seq).toBe(1);
      break;
    }
    expect(b.closedReason).toBe("unsubscribed");
    expect(buffer.episodeInfo(key())?.subscriberCount).toBe(0);
  });
});

describe("subscriber deadline", () => {
  it("closes a subscriber that leaves a part untaken for 10 s as slow, while a fast one continues", async () => {
    const h = harness();
    expect(SUBSCRIBER_DEADLINE_MS).toBe(10_000);
    h.buffer.createEpisode(key());
    const fast = h.buffer.subscribe(key());
    const slow = h.buffer.subscribe(key());
    const fastSeqs: number[] = [];
    const fastDone = (async () => {
      for await (const entry of fast) fastSeqs.push(entry.seq);
    })();

    h.buffer.addPart(key(), part("a")); // sent to both; slow never calls next()
    await flush();
    h.advance(SUBSCRIBER_DEADLINE_MS - 1);
    expect(h.buffer.tick().slowClosed).toBe(0);
    expect(slow.closedReason).toBeNull();

    h.advance(1);
    expect(h.buffer.tick().slowClosed).toBe(1);
    expect(slow.closedReason).toBe("slow");
    expect(await slow.next()).toEqual({ done: true, value: "slow" });
    expect(fast.closedReason).toBeNull();

    h.buffer.addPart(key(), part("b"));
    h.buffer.closeEpisode(key());
    await fastDone;
    expect(fastSeqs).toEqual([1, 2]);
    expect(fast.closedReason).toBe("ended");
  });

  it("times each part from when the subscriber took the previous one, so a backlog does not expire at once", async () => {
    const h = harness();
    h.buffer.createEpisode(key());
    h.buffer.addPart(key(), part("a"));
    h.buffer.addPart(key(), part("b"));
    h.advance(60_000); // the parts are old
    const subscription = h.buffer.subscribe(key());
    expect(h.buffer.nextDeadline()).toBe(h.now() + SUBSCRIBER_DEADLINE_MS);
    h.advance(9_000);
    await subscription.next(); // seq 1, just in time; seq 2 is offered from now
    h.advance(9_000);
    expect(h.buffer.tick().slowClosed).toBe(0);
    await subscription.next(); // seq 2
    h.advance(30_000);
    expect(h.buffer.tick().slowClosed).toBe(0); // nothing pending: a caught-up subscriber is never late
    expect(subscription.closedReason).toBeNull();
  });

  it("never times out a subscriber that is waiting in next()", async () => {
    const h = harness();
    h.buffer.createEpisode(key());
    const subscription = h.buffer.subscribe(key());
    const pending = subscription.next();
    h.advance(120_000);
    expect(h.buffer.tick().slowClosed).toBe(0);
    h.buffer.addPart(key(), part("a"));
    expect((await pending).done).toBe(false);
    expect(subscription.closedReason).toBeNull();
  });
});

describe("garbage collection", () => {
  it("collects a closed episode 15 s after the close, not before", () => {
    const h = harness();
    expect(CLOSED_EPISODE_TTL_MS).toBe(15_000);
    h.buffer.createEpisode(key(1, 0));
    h.buffer.createEpisode(key(1, 1)); // stays open: never collected
    h.buffer.closeEpisode(key(1, 0));
    h.advance(CLOSED_EPISODE_TTL_MS - 1);
    expect(h.buffer.tick(h.now()).collected).toEqual([]);
    h.advance(1);
    expect(h.buffer.tick(h.now()).collected).toEqual([key(1, 0)]);
    expect(h.buffer.episodeInfo(key(1, 0))).toBeNull();
    expectError(() => h.buffer.getParts(key(1, 0)), EpisodeNotFoundError);
    h.advance(3_600_000);
    expect(h.buffer.tick(h.now()).collected).toEqual([]);
    expect(h.buffer.episodeInfo(key(1, 1))).not.toBeNull();
  });

  it("keeps a closed episode while a subscriber is still reading it, and collects it once the subscriber has finished", async () => {
    const h = harness();
    h.buffer.createEpisode(key());
    for (const text of ["a", "b", "c"]) h.buffer.addPart(key(), part(text));
    const subscription = h.buffer.subscribe(key());
    h.buffer.closeEpisode(key());
    const closedAt = h.now();

    h.advance(8_000);
    await subscription.next(); // seq 1 at +8 s
    h.advance(8_000);
    await subscription.next(); // seq 2 at +16 s: past the TTL, never late
    expect(h.buffer.tick().collected).toEqual([]);
    expect(h.buffer.episodeInfo(key())?.subscriberCount).toBe(1);

    h.requested.length = 0;
    await subscription.next(); // seq 3, the last part: the subscription ends and lets go
    expect(subscription.closedReason).toBe("ended");
    expect(h.requested).toEqual([closedAt + CLOSED_EPISODE_TTL_MS]); // the owner is asked to tick now
    expect(h.buffer.tick().collected).toEqual([key()]);
  });

  it("a slow subscriber holds the episode only until the tick that closes it", () => {
    const h = harness();
    h.buffer.createEpisode(key());
    h.buffer.addPart(key(), part("a"));
    const subscription = h.buffer.subscribe(key());
    h.buffer.closeEpisode(key());
    h.advance(CLOSED_EPISODE_TTL_MS);
    expect(h.buffer.tick()).toEqual({ slowClosed: 1, collected: [key()], nextDeadline: null });
    expect(subscription.closedReason).toBe("slow");
  });
});

describe("deadlines for the object's alarm", () => {
  it("nextDeadline is the earliest pending-part deadline or collection instant, and null when nothing is due", async () => {
    const h = harness();
    expect(h.buffer.nextDeadline()).toBeNull();

    h.buffer.createEpisode(key(1, 0));
    const subscription = h.buffer.subscribe(key(1, 0));
    expect(h.buffer.nextDeadline()).toBeNull(); // nothing offered yet
    const pending = subscription.next();
    h.advance(100);
    h.buffer.addPart(key(1, 0), part("a")); // taken at once by the waiting next()
    await pending;
    expect(h.buffer.nextDeadline()).toBeNull();

    h.advance(100);
    h.buffer.addPart(key(1, 0), part("b")); // offered to a subscriber that is not reading
    const offeredAt = h.now();
    expect(h.buffer.nextDeadline()).toBe(offeredAt + SUBSCRIBER_DEADLINE_MS);

    h.advance(1_000);
    h.buffer.closeEpisode(key(1, 1)); // another episode, closed with no subscriber
    expect(h.buffer.nextDeadline()).toBe(offeredAt + SUBSCRIBER_DEADLINE_MS);
    const secondClosedAt = h.now();

    await subscription.next(); // seq 2 taken; episode (1,0) is still open
    expect(h.buffer.nextDeadline()).toBe(secondClosedAt + CLOSED_EPISODE_TTL_MS);

    h.advance(CLOSED_EPISODE_TTL_MS);
    const result = h.buffer.tick();
    expect(result.collected).toEqual([key(1, 1)]);
    expect(result.nextDeadline).toBeNull();
    expect(h.buffer.nextDeadline()).toBeNull();
  });

  it("asks the owner for a tick when an earlier deadline appears, and again after each tick", async () => {
    const h = harness();
    h.buffer.createEpisode(key());
    const subscription = h.buffer.subscribe(key());
    h.buffer.addPart(key(), part("a"));
    expect(h.requested).toEqual([T0 + SUBSCRIBER_DEADLINE_MS]);
    h.advance(1_000);
    h.buffer.addPart(key(), part("b")); // later than the requested instant: no new request
    expect(h.requested).toEqual([T0 + SUBSCRIBER_DEADLINE_MS]);

    h.advance(2_000);
    await subscription.next();
    h.buffer.tick(); // nothing due yet; asks for the pending part's deadline
    expect(h.requested.at(-1)).toBe(h.now() + SUBSCRIBER_DEADLINE_MS);
    expect(h.buffer.tick().nextDeadline).toBe(h.now() + SUBSCRIBER_DEADLINE_MS);
  });
});

describe("takeReady", () => {
  it("takes the parts ready now up to the limit, in seq order, and nothing while a next() is parked", async () => {
    const { buffer } = harness();
    buffer.createEpisode(key());
    const sub = buffer.subscribe(key());
    const parked = sub.next();
    expect(sub.takeReady(10)).toEqual([]);
    for (const t of ["a", "b", "c", "d"]) buffer.addPart(key(), part(t));
    expect((await parked).value).toMatchObject({ seq: 1 });
    expect(sub.takeReady(2).map((p) => p.seq)).toEqual([2, 3]);
    expect(sub.takeReady(10).map((p) => p.seq)).toEqual([4]);
    expect(sub.takeReady(10)).toEqual([]);
    expect(sub.delivered).toBe(4);
  });

  it("ends the subscription when it takes the last part of a closed episode", async () => {
    const { buffer } = harness();
    buffer.createEpisode(key());
    buffer.addPart(key(), part("a"));
    buffer.addPart(key(), part("b"));
    buffer.closeEpisode(key());
    const sub = buffer.subscribe(key());
    expect(sub.takeReady(10).map((p) => p.part.text)).toEqual(["a", "b"]);
    expect(sub.closedReason).toBe("ended");
    expect(await sub.next()).toEqual({ done: true, value: "ended" });
  });
});
