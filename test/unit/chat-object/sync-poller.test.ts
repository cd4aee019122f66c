import { describe, expect, it } from "vitest";
import { ObjectCadence } from "../../../durable-objects/chat-object/object-cadence";
import { SyncPoller } from "../../../durable-objects/chat-object/sync-poller";
import type { SyncHints } from "../../../src/stream/sync-state";

/** A poller on a hand-moved time, over streams that record what they were told. */
function setup(opts: { chatId?: string; socketsChat?: string; hints?: SyncHints; fails?: boolean; idleMs?: number } = {}) {
  let now = 1_000;
  const cadence = new ObjectCadence({ now: () => now, busy: () => false, idleMs: () => opts.idleMs ?? 0, woke: () => {} });
  const told: string[] = [];
  const streams = {
    count: 0,
    hint: (h: SyncHints) => told.push(`hint ${JSON.stringify(h)}`),
    resync: () => told.push("resync"),
    chatIdFromSockets: () => opts.socketsChat,
  };
  const poller = new SyncPoller({
    streams,
    chatId: () => opts.chatId,
    readHints: async () => {
      if (opts.fails) throw new Error("connection refused");
      return opts.hints;
    },
    pollMs: () => 100,
    now: () => now,
    cadence,
  });
  return {
    poller,
    cadence,
    streams,
    told,
    advance(ms: number) {
      now += ms;
      return now;
    },
  };
}

describe("SyncPoller", () => {
  it("has no deadline without open streams, and forgets its schedule when they close", () => {
    const { poller, streams } = setup();
    expect(poller.dueAt()).toBeNull();
    streams.count = 1;
    poller.streamOpened();
    expect(poller.dueAt()).toBe(1_100);
    streams.count = 0;
    expect(poller.dueAt()).toBeNull();
    streams.count = 1;
    // After a restart (no schedule) a poll is overdue: due at any instant.
    expect(poller.dueAt()).toBe(0);
    expect(poller.isDue(1_000)).toBe(true);
  });

  it("polls only when due, then schedules the next one an interval after the alarm", async () => {
    const { poller, streams, told, advance } = setup({ chatId: "c", hints: { snapshotVersion: 3 } });
    streams.count = 1;
    poller.streamOpened();
    expect(poller.pollIfDue(advance(99))).toBeUndefined();
    await poller.pollIfDue(advance(1));
    expect(told).toEqual(['hint {"snapshotVersion":3}']);
    expect(poller.dueAt()).toBe(1_200);
    // A second stream opening does not move a scheduled poll.
    poller.streamOpened();
    expect(poller.dueAt()).toBe(1_200);
  });

  it("polls an idle chat every idle interval, and a chat that moved unseen is active again", async () => {
    const hints: SyncHints = { snapshotVersion: 3 };
    const { poller, streams, told, cadence, advance } = setup({ chatId: "c", hints, idleMs: 1_000 });
    streams.count = 1;
    poller.streamOpened();
    // Nothing has happened in this instance: idle, so the first poll is an idle interval away.
    expect(poller.dueAt()).toBe(2_000);
    cadence.touched();
    expect(poller.dueAt()).toBe(1_100);
    await poller.pollIfDue(advance(100));
    expect(poller.dueAt()).toBe(1_200);
    // Quiet for the idle interval: polls space out to it.
    await poller.pollIfDue(advance(1_000));
    expect(poller.dueAt()).toBe(3_100);
    expect(cadence.idle(2_100)).toBe(true);
    // The next poll reads other versions (a notification was lost): active again.
    hints.snapshotVersion = 4;
    await poller.pollIfDue(advance(1_000));
    expect(told.at(-1)).toBe('hint {"snapshotVersion":4}');
    expect(cadence.idle(3_100)).toBe(false);
    expect(poller.dueAt()).toBe(3_200);
    // `anyway`: an idle chat's wake runs both reads, due or not.
    expect(poller.pollIfDue(3_150)).toBeUndefined();
    await poller.pollIfDue(3_150, true);
    expect(told).toHaveLength(4);
  });

  it("resyncs when the chat's row is gone, restores loops when the chat is unknown, and survives a failed read", async () => {
    const gone = setup({ chatId: "c" });
    gone.streams.count = 1;
    await gone.poller.pollIfDue(1_000);
    expect(gone.told).toEqual(["resync"]);

    const fresh = setup();
    fresh.streams.count = 1;
    await fresh.poller.pollIfDue(1_000);
    expect(fresh.told).toEqual(["hint {}"]);

    // A fresh instance whose sockets' attachments name the chat reads its versions as usual.
    const restored = setup({ socketsChat: "c", hints: { snapshotVersion: 7, status: "waiting" } });
    restored.streams.count = 1;
    await restored.poller.pollIfDue(1_000);
    expect(restored.told).toEqual(['hint {"snapshotVersion":7,"status":"waiting"}']);

    const failing = setup({ chatId: "c", fails: true });
    failing.streams.count = 1;
    await expect(failing.poller.pollIfDue(1_000)).resolves.toBeUndefined();
    expect(failing.told).toEqual([]);
  });
});
