import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChatMessageWire, ChatQueuedMessageWire } from "../../../src/wire/chat-wire";
import type { StreamPart } from "../../../src/wire/stream-part";
import { type EpisodeKey, episodeKey, PartBuffer, SUBSCRIBER_DEADLINE_MS } from "../../../src/part-buffer/part-buffer";
import type { ChatStreamEvent, ChatStreamEventType } from "../../../src/wire/stream-events";
import { type EpisodeSource, STREAM_CLOSE, StreamLoop, type StreamSocket } from "../../../src/stream/stream-loop";
import { EpisodeRelays } from "../../../src/stream/episode-relays";
import type { SyncChatRow, SyncReadCursors, SyncReader, SyncSnapshot } from "../../../src/stream/sync-snapshot";
import { NULL_CURSORS, type StreamCursors, type SyncHints } from "../../../src/stream/sync-state";

const CHAT = "0b6c1f7e-4a39-4f2e-9a52-1c1f3c1e2d10";
const W1 = "7c1e2a4b-0d3f-4e5a-9b6c-8d7e6f5a4b3c";
const W2 = "2f3e4d5c-6b7a-4980-a1b2-c3d4e5f6a7b8";
const T0 = 1_700_000_000_000;

// ---------------------------------------------------------------------------------------------
// Snapshots

/** A running chat at history 3, attempt 1 of worker W1: what most tests bootstrap into. */
function row(over: Partial<SyncChatRow> = {}): SyncChatRow {
  return {
    snapshotVersion: 1,
    historyVersion: 3,
    queueVersion: 1,
    retryStateVersion: 0,
    generationAttempt: 1,
    status: "running",
    workerId: W1,
    retryState: null,
    error: null,
    ...over,
  };
}

function snap(chat: SyncChatRow, extra: Partial<Omit<SyncSnapshot, "chat">> = {}): SyncSnapshot {
  return { chat, messages: null, queue: null, pendingToolCalls: null, ...extra };
}

function msg(id: number, revision: number): ChatMessageWire {
  return {
    id,
    chat_id: CHAT,
    role: "user",
    content: [{ type: "text", text: `${id}@${revision}` }],
    revision,
    queued_message_id: null,
    model_config_id: null,
    reasoning_effort: null,
    created_by: null,
    created_at: "2024-01-01T00:00:00.000Z",
    usage: null,
  };
}

function queued(id: number, position: number): ChatQueuedMessageWire {
  return {
    id,
    chat_id: CHAT,
    position,
    content: [{ type: "text", text: `q${id}` }],
    model_config_id: null,
    reasoning_effort: null,
    created_by: W1,
    created_at: "2024-01-01T00:00:00.000Z",
  };
}

/** The bootstrap of `row()`: two messages and a one-entry queue. */
const BOOT = snap(row(), { messages: { refresh: false, rows: [msg(1, 2), msg(2, 3)] }, queue: [queued(1, 0)] });

// ---------------------------------------------------------------------------------------------
// Harness

type Scripted = SyncSnapshot | null | Error | "hold";

interface HeldRead {
  cursors: SyncReadCursors;
  resolve(snapshot: SyncSnapshot | null): void;
  reject(error: Error): void;
}

/**
 * A SyncReader that answers each call with the next scripted response: a snapshot, null (the chat
 * is gone), an Error (the read fails) or "hold" (the read stays pending until the test settles it).
 * Without a script left it holds.
 */
class ScriptedReader {
  /** The cursors of every call, copied at call time. */
  readonly calls: SyncReadCursors[] = [];
  readonly held: HeldRead[] = [];
  readonly #script: Scripted[] = [];

  then_(...responses: Scripted[]): this {
    this.#script.push(...responses);
    return this;
  }

  readonly read: SyncReader = (chatId, cursors) => {
    expect(chatId).toBe(CHAT);
    this.calls.push({ ...cursors });
    const next = this.#script.length > 0 ? this.#script.shift()! : "hold";
    if (next === "hold") {
      return new Promise((resolve, reject) => this.held.push({ cursors: { ...cursors }, resolve, reject }));
    }
    if (next instanceof Error) return Promise.reject(next);
    return Promise.resolve(next);
  };

  /** Settles the oldest held read. */
  release(snapshot: SyncSnapshot | null): void {
    const read = this.held.shift();
    if (read === undefined) throw new Error("no held read");
    read.resolve(snapshot);
  }
}

/** Records frames and closes; can be told to throw on a send. */
class RecordingSocket implements StreamSocket {
  readonly frames: string[] = [];
  readonly closes: { code: number; reason: string }[] = [];
  /** Every call to send, including those that threw. */
  sendCalls = 0;
  /** The next `failSends` sends throw. */
  failSends = 0;

  send(frame: string): void {
    this.sendCalls++;
    if (this.failSends > 0) {
      this.failSends--;
      throw new Error("socket is closed");
    }
    this.frames.push(frame);
  }

  close(code: number, reason: string): void {
    this.closes.push({ code, reason });
  }

  /** Each frame, parsed. */
  parsed(): unknown[] {
    return this.frames.map((f) => JSON.parse(f) as unknown);
  }

  /** Every event of every array frame, in order. */
  events(): ChatStreamEvent[] {
    return this.parsed().flatMap((f) => (Array.isArray(f) ? (f as ChatStreamEvent[]) : []));
  }

  /** The event types of frame i. */
  frameTypes(i: number): ChatStreamEventType[] {
    const frame = JSON.parse(this.frames[i]!) as ChatStreamEvent[];
    expect(Array.isArray(frame)).toBe(true);
    return frame.map((e) => e.type);
  }
}

const text = (s: string): StreamPart => ({ type: "text", text: s });

/** [history_version, generation_attempt, seq, text] of every message_part event. */
function partsOf(events: readonly ChatStreamEvent[]): [number, number, number, string][] {
  return events.flatMap((e) => {
    if (e.type !== "message_part") return [];
    const p = e.message_part;
    return [[p.history_version, p.generation_attempt, p.seq, p.part.type === "text" ? p.part.text : "?"]];
  });
}

const seqsOf = (events: readonly ChatStreamEvent[]) => partsOf(events).map(([, , seq]) => seq);
const typesOf = (events: readonly ChatStreamEvent[]) => events.map((e) => e.type);
/** The event sent before a 1011 / 4404 close: Coder's error shape, with `code` saying why the stream ends. */
const closing = (code: "internal" | "not_found", retryable: boolean) => ({
  type: "error",
  chat_id: CHAT,
  error: { code, message: expect.any(String), detail: null, kind: "generic", reason: code, provider: null, retryable, status_code: null },
});

/** Lets every pending promise callback run (the loop, the relay forwarder, immediate sleeps). */
function flush(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

interface HarnessOptions {
  cursors?: StreamCursors;
  readAttempts?: number;
}

function harness(options: HarnessOptions = {}) {
  let t = T0;
  const buffer = new PartBuffer<StreamPart>({ now: () => t });
  const reader = new ScriptedReader();
  const socket = new RecordingSocket();
  const saved: StreamCursors[] = [];
  const sleeps: number[] = [];
  const subscribed: [number, number][] = [];
  const relays = new EpisodeRelays(buffer, () => CHAT, { coalesce: async () => {} });
  let ended = 0;
  const loop = new StreamLoop({
    chatId: CHAT,
    read: reader.read,
    parts: (historyVersion, generationAttempt, listener) => {
      subscribed.push([historyVersion, generationAttempt]);
      return relays.follow(historyVersion, generationAttempt, listener);
    },
    socket,
    cursors: options.cursors,
    saved: (c) => saved.push({ ...c }),
    ended: () => {
      ended++;
    },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    readAttempts: options.readAttempts,
  });
  const key = (historyVersion = 3, generationAttempt = 1): EpisodeKey => episodeKey(CHAT, historyVersion, generationAttempt);
  return {
    buffer,
    reader,
    socket,
    loop,
    saved,
    sleeps,
    subscribed,
    key,
    get ended() {
      return ended;
    },
    advance(ms: number) {
      t += ms;
      return t;
    },
    /** Adds parts to an episode (creating it first if needed), synchronously: one burst. */
    add(k: EpisodeKey, ...texts: string[]): number[] {
      if (buffer.episodeInfo(k) === null) buffer.createEpisode(k);
      return texts.map((s) => buffer.addPart(k, text(s)));
    },
    /** start() with BOOT (or the given snapshot) and let it settle. */
    async boot(snapshot: SyncSnapshot = BOOT) {
      reader.then_(snapshot);
      loop.start();
      await flush();
    },
  };
}

/** The loop's cursors after bootstrapping into BOOT. */
const BOOTED: StreamCursors = {
  ...NULL_CURSORS,
  snapshotVersion: 1,
  historyVersion: 3,
  queueVersion: 1,
  retryStateVersion: 0,
  status: "running",
  workerId: W1,
  generationAttempt: 1,
  lastPartSeq: 0,
  attemptRetired: false,
};

beforeEach(() => {
  // The loop logs retries, write failures and gaps; keep the test output clean.
  vi.spyOn(console, "log").mockImplementation(() => {});
  vi.spyOn(console, "warn").mockImplementation(() => {});
  vi.spyOn(console, "error").mockImplementation(() => {});
});

afterEach(() => {
  vi.restoreAllMocks();
});

// ---------------------------------------------------------------------------------------------

describe("StreamLoop: Sync", () => {
  it("bootstrap fetches unconditionally from the null state and sends the full state in one frame", async () => {
    const h = harness();
    await h.boot();

    expect(h.reader.calls).toEqual([{ ...NULL_CURSORS }]);
    expect(h.socket.frames).toHaveLength(1);
    expect(h.socket.frameTypes(0)).toEqual(["message", "message", "queue_update", "status", "preview_reset"]);
    const events = h.socket.events();
    expect(events.flatMap((e) => (e.type === "message" ? [e.message.id] : []))).toEqual([1, 2]);
    expect(events.every((e) => e.chat_id === CHAT)).toBe(true);
    expect(h.loop.cursors).toEqual(BOOTED);
    // Step 9: the relay reads the episode of the snapshot.
    expect(h.subscribed).toEqual([[3, 1]]);
    expect(h.buffer.stats().subscriptions).toBe(1);
    expect(h.socket.closes).toEqual([]);
    expect(h.ended).toBe(0);
    expect(h.loop.ended).toBe(false);
  });

  it("a bootstrap of a chat without a generation attempt configures no relay", async () => {
    const h = harness();
    await h.boot(snap(row({ generationAttempt: 0, workerId: null, status: "waiting" })));
    expect(h.socket.frameTypes(0)).toEqual(["status", "preview_reset"]);
    expect(h.subscribed).toEqual([]);
  });

  it("Syncs queued while a read is in flight merge into one read, at the cursors the first one left", async () => {
    const h = harness();
    h.reader.then_("hold");
    h.loop.start();
    await flush();
    expect(h.reader.calls).toHaveLength(1);

    // Three hints arrive during the bootstrap's read; only the last calls for a fetch once the
    // bootstrap has been applied, but one is enough.
    h.loop.sync({ snapshotVersion: 1, historyVersion: 3 });
    h.loop.sync({ status: "running" });
    h.loop.sync({ snapshotVersion: 2, queueVersion: 2 });
    await flush();
    expect(h.reader.calls).toHaveLength(1);

    h.reader.release(BOOT);
    await flush();
    expect(h.reader.calls).toHaveLength(2);
    expect(h.reader.calls[1]).toEqual(BOOTED);

    h.reader.release(snap(row({ snapshotVersion: 2, queueVersion: 2 }), { queue: [queued(1, 0), queued(2, 1)] }));
    await flush();
    expect(h.reader.calls).toHaveLength(2);
    expect(h.socket.frames).toHaveLength(2);
    expect(h.socket.frameTypes(1)).toEqual(["queue_update"]);
    expect(h.loop.cursors.queueVersion).toBe(2);
  });

  it("queued hints that the first Sync made stale do no read at all", async () => {
    const h = harness();
    h.reader.then_("hold");
    h.loop.start();
    h.loop.sync({ historyVersion: 3, status: "running" });
    h.loop.sync({ snapshotVersion: 1, queueVersion: 9 });
    h.reader.release(BOOT);
    await flush();
    expect(h.reader.calls).toHaveLength(1);
    expect(h.socket.frames).toHaveLength(1);
  });

  it("a resync queued behind a hint still forces its read", async () => {
    const h = harness();
    h.reader.then_("hold");
    h.loop.start();
    h.loop.sync({ status: "running" }); // stale once the bootstrap is applied
    h.loop.resync();
    h.reader.release(BOOT);
    await flush();
    expect(h.reader.calls).toHaveLength(2);
    h.reader.release(BOOT); // same snapshot_version: a no-op
    await flush();
    expect(h.socket.frames).toHaveLength(1);
    expect(h.saved).toHaveLength(1);
  });

  it("a hint that does not call for a fetch does no read", async () => {
    const h = harness();
    await h.boot();
    const hints: SyncHints[] = [
      {},
      { snapshotVersion: 1, historyVersion: 99 }, // snapshot_version not newer
      { snapshotVersion: 2 }, // a newer snapshot_version alone
      { historyVersion: 3, queueVersion: 1, retryStateVersion: 0, status: "running", workerId: W1, generationAttempt: 1 },
      { historyVersion: 2, queueVersion: 0 }, // older
    ];
    for (const hint of hints) h.loop.sync(hint);
    await flush();
    expect(h.reader.calls).toHaveLength(1);
    expect(h.socket.frames).toHaveLength(1);
    expect(h.saved).toHaveLength(1);

    // Any one field that differs does read.
    h.loop.sync({ workerId: null });
    await flush();
    expect(h.reader.calls).toHaveLength(2);
  });

  it("a fetch that finds nothing newer sends nothing and saves nothing", async () => {
    const h = harness();
    await h.boot();
    h.reader.then_(snap(row({ snapshotVersion: 1, status: "error" })));
    h.loop.sync({ status: "error" });
    await flush();
    expect(h.reader.calls).toHaveLength(2);
    expect(h.socket.frames).toHaveLength(1);
    expect(h.saved).toHaveLength(1);
    expect(h.loop.cursors).toEqual(BOOTED);
  });

  it("saved is called with the new cursors after each Sync that applied a snapshot", async () => {
    const h = harness();
    await h.boot();
    expect(h.saved).toEqual([BOOTED]);

    h.reader.then_(snap(row({ snapshotVersion: 4, status: "requires_action", historyVersion: 5, generationAttempt: 0 })));
    h.loop.sync({ status: "requires_action" });
    await flush();
    const after: StreamCursors = {
      ...BOOTED,
      snapshotVersion: 4,
      historyVersion: 5,
      status: "requires_action",
      generationAttempt: 0,
      actionRequiredHistoryVersion: 5,
    };
    expect(h.saved).toEqual([BOOTED, after]);
    expect(h.loop.cursors).toEqual(after);
  });
});

describe("StreamLoop: relay and Part", () => {
  it("relays buffered parts as message_part events in seq order, a burst in one frame", async () => {
    const h = harness();
    await h.boot();
    expect(h.add(h.key(), "a", "b", "c")).toEqual([1, 2, 3]);
    await flush();
    expect(h.socket.frames).toHaveLength(2);
    expect(h.socket.frameTypes(1)).toEqual(["message_part", "message_part", "message_part"]);
    expect(partsOf(h.socket.events())).toEqual([
      [3, 1, 1, "a"],
      [3, 1, 2, "b"],
      [3, 1, 3, "c"],
    ]);
    const first = h.socket.events().find((e) => e.type === "message_part");
    expect(first).toEqual({
      type: "message_part",
      chat_id: CHAT,
      message_part: { role: "assistant", part: text("a"), history_version: 3, generation_attempt: 1, seq: 1 },
    });

    h.add(h.key(), "d");
    await flush();
    expect(h.socket.frames).toHaveLength(3);
    expect(seqsOf(h.socket.events())).toEqual([1, 2, 3, 4]);
    expect(h.loop.cursors.lastPartSeq).toBe(4);
  });

  it("parts already buffered before the bootstrap are sent from seq 1 in one frame after the state", async () => {
    const h = harness();
    h.add(h.key(), "a", "b", "c", "d", "e");
    await h.boot();
    expect(h.socket.frames).toHaveLength(2);
    expect(h.socket.frameTypes(0)).toEqual(["message", "message", "queue_update", "status", "preview_reset"]);
    expect(seqsOf(h.socket.events())).toEqual([1, 2, 3, 4, 5]);
  });

  it("waits for an episode that does not exist yet", async () => {
    const h = harness();
    await h.boot();
    await flush();
    expect(h.socket.frames).toHaveLength(1);
    h.add(h.key(), "a");
    await flush();
    expect(seqsOf(h.socket.events())).toEqual([1]);
  });

  it("drops parts of an episode that does not match the cursors", async () => {
    const h = harness();
    await h.boot();
    h.add(h.key(), "a");
    await flush();

    // The history was edited: history 4, no attempt yet. Step 9 leaves the relay where it was, but
    // its episode no longer matches the cursors.
    h.reader.then_(snap(row({ snapshotVersion: 2, historyVersion: 4, generationAttempt: 0, status: "waiting", workerId: null })));
    h.loop.sync({ historyVersion: 4 });
    await flush();
    expect(typesOf(h.socket.events()).slice(-2)).toEqual(["status", "preview_reset"]);
    expect(h.subscribed).toEqual([[3, 1]]);

    h.add(h.key(), "b", "c");
    await flush();
    expect(seqsOf(h.socket.events())).toEqual([1]);
    expect(h.loop.cursors.lastPartSeq).toBe(0);
  });

  it("drops parts of the old episode queued behind a Sync that moved to a new one", async () => {
    const h = harness();
    await h.boot();
    h.reader.then_("hold");
    h.loop.sync({ generationAttempt: 2 });
    await flush();
    // Relayed while the Sync reads: judged after it, against the new episode.
    h.add(h.key(), "old1", "old2");
    await flush();
    h.reader.release(snap(row({ snapshotVersion: 2, generationAttempt: 2 })));
    await flush();
    expect(partsOf(h.socket.events())).toEqual([]);
    expect(h.socket.frameTypes(1)).toEqual(["preview_reset"]);
    h.add(h.key(3, 2), "new1");
    await flush();
    expect(partsOf(h.socket.events())).toEqual([[3, 2, 1, "new1"]]);
  });

  it("drops the remaining parts after a Sync that retires the attempt", async () => {
    const h = harness();
    await h.boot();
    h.add(h.key(), "a", "b");
    await flush();

    const retry = { attempt: 1, delay_ms: 2000, error: "overloaded" };
    h.reader.then_(snap(row({ snapshotVersion: 2, retryStateVersion: 1, retryState: retry })));
    h.loop.sync({ retryStateVersion: 1 });
    await flush();
    expect(h.socket.frameTypes(2)).toEqual(["retry"]);
    expect(h.loop.cursors.attemptRetired).toBe(true);

    h.add(h.key(), "c", "d");
    await flush();
    expect(seqsOf(h.socket.events())).toEqual([1, 2]);
    expect(h.socket.frames).toHaveLength(3);

    // The retry is cancelled (retry_state cleared, same episode): the attempt stays retired.
    h.reader.then_(snap(row({ snapshotVersion: 3, retryStateVersion: 2, retryState: null })));
    h.loop.sync({ retryStateVersion: 2 });
    await flush();
    h.add(h.key(), "e");
    await flush();
    expect(seqsOf(h.socket.events())).toEqual([1, 2]);
  });

  it("drops parts relayed while the retiring Sync's read was pending", async () => {
    const h = harness();
    await h.boot();
    h.add(h.key(), "a");
    await flush();
    h.reader.then_("hold");
    h.loop.sync({ status: "error" });
    await flush();
    h.add(h.key(), "b", "c");
    await flush();
    h.reader.release(
      snap(
        row({
          snapshotVersion: 2,
          status: "error",
          error: { message: "x", detail: null, kind: "generic", reason: "k", provider: null, retryable: false, status_code: null },
        }),
      ),
    );
    await flush();
    expect(seqsOf(h.socket.events())).toEqual([1]);
    expect(h.socket.frameTypes(2)).toEqual(["status", "error"]);
  });

  it("a new attempt's Sync resets the preview and switches the relay to the new episode, from seq 1", async () => {
    const h = harness();
    await h.boot();
    h.add(h.key(), "a", "b");
    await flush();
    const retry = { attempt: 1, delay_ms: 10, error: "overloaded" };
    h.reader.then_(snap(row({ snapshotVersion: 2, retryStateVersion: 1, retryState: retry })));
    h.loop.sync({ retryStateVersion: 1 });
    await flush();

    // Attempt 2 already streamed some parts before the Sync that announces it.
    h.add(h.key(3, 2), "x", "y");
    h.reader.then_(snap(row({ snapshotVersion: 3, generationAttempt: 2, retryStateVersion: 2 })));
    h.loop.sync({ generationAttempt: 2 });
    await flush();

    expect(h.socket.frameTypes(3)).toEqual(["preview_reset"]);
    expect(h.subscribed).toEqual([
      [3, 1],
      [3, 2],
    ]);
    expect(h.buffer.episodeInfo(h.key(3, 1))?.subscriberCount).toBe(0);
    expect(h.buffer.episodeInfo(h.key(3, 2))?.subscriberCount).toBe(1);
    expect(h.loop.cursors).toMatchObject({ generationAttempt: 2, attemptRetired: false });

    h.add(h.key(3, 1), "late");
    h.add(h.key(3, 2), "z");
    await flush();
    expect(partsOf(h.socket.events())).toEqual([
      [3, 1, 1, "a"],
      [3, 1, 2, "b"],
      [3, 2, 1, "x"],
      [3, 2, 2, "y"],
      [3, 2, 3, "z"],
    ]);
    // preview_reset comes before the new episode's first part.
    const types = typesOf(h.socket.events());
    expect(types.lastIndexOf("preview_reset")).toBeLessThan(types.length - 3);
  });

  it("a Sync naming another worker for the same episode re-subscribes without resending parts", async () => {
    const h = harness();
    await h.boot();
    h.add(h.key(), "a", "b");
    await flush();
    h.reader.then_(snap(row({ snapshotVersion: 2, workerId: W2 })));
    h.loop.sync({ workerId: W2 });
    await flush();
    expect(h.subscribed).toEqual([
      [3, 1],
      [3, 1],
    ]);
    expect(h.buffer.episodeInfo(h.key())?.subscriberCount).toBe(1);
    h.add(h.key(), "c");
    await flush();
    expect(seqsOf(h.socket.events())).toEqual([1, 2, 3]);
  });

  it("worker_id null stops the relay", async () => {
    const h = harness();
    await h.boot();
    h.add(h.key(), "a");
    await flush();
    h.reader.then_(snap(row({ snapshotVersion: 2, workerId: null, status: "waiting" })));
    h.loop.sync({ workerId: null });
    await flush();
    expect(h.buffer.stats().subscriptions).toBe(0);

    // Parts that would match the cursors are no longer relayed.
    h.add(h.key(), "b");
    await flush();
    expect(seqsOf(h.socket.events())).toEqual([1]);

    // A worker again: the relay resumes after the last accepted part.
    h.reader.then_(snap(row({ snapshotVersion: 3, workerId: W1, status: "running" })));
    h.loop.sync({ workerId: W1 });
    await flush();
    expect(seqsOf(h.socket.events())).toEqual([1, 2]);
  });

  it("a Part op never interleaves a Sync: parts relayed during its read follow its events", async () => {
    const h = harness();
    await h.boot();
    h.add(h.key(), "a");
    await flush();

    h.reader.then_("hold");
    h.loop.sync({ queueVersion: 2 });
    await flush();
    h.add(h.key(), "b", "c");
    await flush();
    h.add(h.key(), "d");
    await flush();
    expect(h.socket.frames).toHaveLength(2); // nothing sent while the Sync waits

    h.reader.release(snap(row({ snapshotVersion: 2, queueVersion: 2 }), { queue: [] }));
    await flush();
    expect(h.socket.frameTypes(2)).toEqual(["queue_update"]);
    expect(h.socket.frames.slice(3).every((_, i) => h.socket.frameTypes(3 + i).every((t) => t === "message_part"))).toBe(true);
    expect(seqsOf(h.socket.events())).toEqual([1, 2, 3, 4]);
    expect(h.reader.calls).toHaveLength(2);
  });

  it("operations run in arrival order: a hint after queued parts waits for them", async () => {
    const h = harness();
    await h.boot();
    h.reader.then_("hold");
    h.loop.sync({ queueVersion: 2 });
    await flush();
    h.add(h.key(), "a", "b"); // queued behind the first Sync
    await flush();
    h.reader.then_(snap(row({ snapshotVersion: 3, queueVersion: 3 }), { queue: [] }));
    h.loop.sync({ queueVersion: 3 }); // queued behind the parts: not merged into the Sync in flight
    await flush();
    h.reader.release(snap(row({ snapshotVersion: 2, queueVersion: 2 }), { queue: [queued(2, 0)] }));
    await flush();
    expect(h.reader.calls).toHaveLength(3);
    expect(h.socket.frames.slice(1).map((_, i) => h.socket.frameTypes(i + 1))).toEqual([
      ["queue_update"],
      ["message_part", "message_part"],
      ["queue_update"],
    ]);
  });

  it("a resumed loop on the same episode gets only the parts after its lastPartSeq", async () => {
    const resumed: StreamCursors = {
      ...NULL_CURSORS,
      historyVersion: 3,
      queueVersion: 1,
      generationAttempt: 1,
      status: "running",
      lastPartSeq: 2,
    };
    const h = harness({ cursors: resumed });
    h.add(h.key(), "a", "b", "c", "d");
    h.reader.then_(snap(row({ snapshotVersion: 7 })));
    h.loop.start();
    await flush();
    expect(h.reader.calls).toEqual([resumed]);
    // Nothing changed but the snapshot: no state events, no preview_reset.
    expect(typesOf(h.socket.events()).filter((t) => t !== "message_part")).toEqual([]);
    expect(partsOf(h.socket.events())).toEqual([
      [3, 1, 3, "c"],
      [3, 1, 4, "d"],
    ]);
    h.add(h.key(), "e");
    await flush();
    expect(seqsOf(h.socket.events())).toEqual([3, 4, 5]);
  });

  it("a resumed loop on an older episode resets the preview and starts at seq 1", async () => {
    const resumed: StreamCursors = {
      ...NULL_CURSORS,
      historyVersion: 3,
      generationAttempt: 1,
      status: "running",
      queueVersion: 1,
      lastPartSeq: 2,
    };
    const h = harness({ cursors: resumed });
    h.add(h.key(3, 2), "a", "b");
    h.reader.then_(snap(row({ snapshotVersion: 7, generationAttempt: 2 })));
    h.loop.start();
    await flush();
    expect(typesOf(h.socket.events())).toEqual(["preview_reset", "message_part", "message_part"]);
    expect(seqsOf(h.socket.events())).toEqual([1, 2]);
  });

  it("a subscription closed as slow by the buffer re-subscribes: no duplicate, no gap", async () => {
    const h = harness();
    await h.boot();
    h.add(h.key(), "a");
    await flush();
    // The forwarder has just been handed part 2 and not yet taken part 3 when the buffer's tick
    // finds part 3 waiting past the deadline.
    h.add(h.key(), "b", "c");
    h.advance(SUBSCRIBER_DEADLINE_MS);
    expect(h.buffer.tick().slowClosed).toBe(1);
    await flush();

    // The shared relay re-subscribed by itself; the loop still follows once.
    expect(h.subscribed).toEqual([[3, 1]]);
    expect(h.buffer.stats().subscriptions).toBe(1);
    expect(seqsOf(h.socket.events())).toEqual([1, 2, 3]);

    h.add(h.key(), "d");
    await flush();
    expect(seqsOf(h.socket.events())).toEqual([1, 2, 3, 4]);
    expect(h.socket.closes).toEqual([]);
    expect(h.loop.ended).toBe(false);
  });

  it("a slow close while a Sync reads: the replay is judged after it, still no duplicate and no gap", async () => {
    const h = harness();
    await h.boot();
    h.add(h.key(), "a");
    await flush();
    h.reader.then_("hold");
    h.loop.sync({ queueVersion: 2 });
    await flush();
    h.add(h.key(), "b", "c");
    h.advance(SUBSCRIBER_DEADLINE_MS);
    h.buffer.tick();
    await flush();
    h.add(h.key(), "d");
    await flush();
    h.reader.release(snap(row({ snapshotVersion: 2, queueVersion: 2 }), { queue: [] }));
    await flush();
    expect(seqsOf(h.socket.events())).toEqual([1, 2, 3, 4]);
    expect(h.subscribed).toHaveLength(1);
  });

  it("an ended episode stops the relay; its parts were all delivered", async () => {
    const h = harness();
    await h.boot();
    h.add(h.key(), "a", "b");
    h.buffer.closeEpisode(h.key());
    await flush();
    expect(seqsOf(h.socket.events())).toEqual([1, 2]);
    expect(h.buffer.stats().subscriptions).toBe(0);
  });
});

describe("StreamLoop: failures and the end", () => {
  it("a read that fails and then succeeds is retried with backoff", async () => {
    const h = harness();
    h.reader.then_(new Error("connection reset"), new Error("connection reset"), BOOT);
    h.loop.start();
    await flush();
    expect(h.reader.calls).toHaveLength(3);
    expect(h.sleeps).toEqual([100, 500]);
    expect(h.socket.frames).toHaveLength(1);
    expect(h.socket.frameTypes(0)).toContain("status");
    expect(h.socket.closes).toEqual([]);
    expect(h.loop.ended).toBe(false);
  });

  it("failing every attempt sends a closing error event (an array frame like every other) and closes 1011", async () => {
    const h = harness();
    h.reader.then_(new Error("down"), new Error("down"), new Error("down"), new Error("down"));
    h.add(h.key(), "a");
    h.loop.start();
    await flush();
    expect(h.reader.calls).toHaveLength(4);
    expect(h.sleeps).toEqual([100, 500, 2000]);
    expect(h.socket.frames).toHaveLength(1);
    expect(JSON.parse(h.socket.frames[0]!)).toEqual([closing("internal", true)]);
    expect(h.socket.closes).toEqual([{ code: STREAM_CLOSE.internal, reason: expect.any(String) }]);
    expect(STREAM_CLOSE.internal).toBe(1011);
    expect(h.ended).toBe(1);
    expect(h.loop.ended).toBe(true);

    // Ended: no more reads, sends, or closes.
    h.loop.sync({ historyVersion: 9 });
    h.loop.resync();
    await flush();
    expect(h.reader.calls).toHaveLength(4);
    expect(h.socket.sendCalls).toBe(1);
    expect(h.socket.closes).toHaveLength(1);
    expect(h.ended).toBe(1);
  });

  it("readAttempts bounds the attempts of a later Sync too, and the relay stops", async () => {
    const h = harness({ readAttempts: 2 });
    await h.boot();
    expect(h.buffer.stats().subscriptions).toBe(1);
    h.reader.then_(new Error("down"), new Error("down"));
    h.loop.sync({ queueVersion: 2 });
    await flush();
    expect(h.reader.calls).toHaveLength(3);
    expect(h.sleeps).toEqual([100]);
    expect(h.socket.closes).toEqual([{ code: 1011, reason: expect.any(String) }]);
    expect(JSON.parse(h.socket.frames.at(-1)!)).toEqual([closing("internal", true)]);
    expect(h.buffer.stats().subscriptions).toBe(0);
    h.add(h.key(), "a");
    await flush();
    expect(h.socket.sendCalls).toBe(2);
  });

  it("a null snapshot (the chat is gone) sends a closing error event and closes 4404", async () => {
    const h = harness();
    await h.boot();
    h.reader.then_(null);
    h.loop.sync({ historyVersion: 4 });
    await flush();
    expect(JSON.parse(h.socket.frames.at(-1)!)).toEqual([closing("not_found", false)]);
    expect(h.socket.closes).toEqual([{ code: 4404, reason: expect.any(String) }]);
    expect(STREAM_CLOSE.chatGone).toBe(4404);
    expect(h.ended).toBe(1);
    expect(h.buffer.stats().subscriptions).toBe(0);
  });

  it("a send that throws during a Sync ends the loop: no relay, no more reads or sends, ended once", async () => {
    const h = harness();
    h.add(h.key(), "a");
    h.socket.failSends = 1;
    await h.boot();
    expect(h.socket.sendCalls).toBe(1);
    expect(h.loop.ended).toBe(true);
    expect(h.ended).toBe(1);
    // The socket is already broken: the loop does not close it.
    expect(h.socket.closes).toEqual([]);
    // The relay the snapshot names is not set up for a dead loop, and nothing is saved.
    expect(h.buffer.stats().subscriptions).toBe(0);
    expect(h.saved).toEqual([]);

    h.add(h.key(), "b");
    h.loop.sync({ historyVersion: 9 });
    h.loop.resync();
    h.loop.stop();
    await flush();
    expect(h.reader.calls).toHaveLength(1);
    expect(h.socket.sendCalls).toBe(1);
    expect(h.ended).toBe(1);
  });

  it("a send that throws on a parts frame ends the loop and its relay", async () => {
    const h = harness();
    await h.boot();
    h.socket.failSends = 1;
    h.add(h.key(), "a", "b");
    await flush();
    expect(h.socket.sendCalls).toBe(2);
    expect(h.loop.ended).toBe(true);
    expect(h.ended).toBe(1);
    expect(h.buffer.stats().subscriptions).toBe(0);
    h.add(h.key(), "c");
    h.loop.sync({ historyVersion: 9 });
    await flush();
    expect(h.socket.sendCalls).toBe(2);
    expect(h.reader.calls).toHaveLength(1);
  });

  it("stop() while a read is pending: nothing is sent when it returns, no close, ended once", async () => {
    const h = harness();
    await h.boot();
    h.reader.then_("hold");
    h.loop.sync({ queueVersion: 2 });
    await flush();
    h.loop.stop();
    expect(h.buffer.stats().subscriptions).toBe(0);
    h.reader.release(snap(row({ snapshotVersion: 2, queueVersion: 2 }), { queue: [] }));
    await flush();
    expect(h.socket.frames).toHaveLength(1);
    expect(h.socket.closes).toEqual([]);
    expect(h.ended).toBe(1);
    expect(h.saved).toHaveLength(1);
    h.loop.stop();
    expect(h.ended).toBe(1);
  });

  it("stop() during the backoff between attempts reads no more", async () => {
    const h = harness();
    let wake!: () => void;
    const loop = new StreamLoop({
      chatId: CHAT,
      read: h.reader.read,
      parts: (hv, ga, listener) => new EpisodeRelays(h.buffer, () => CHAT, { coalesce: async () => {} }).follow(hv, ga, listener),
      socket: h.socket,
      sleep: () =>
        new Promise<void>((resolve) => {
          wake = resolve;
        }),
    });
    h.reader.then_(new Error("down"), BOOT);
    loop.start();
    await flush();
    loop.stop();
    wake();
    await flush();
    expect(h.reader.calls).toHaveLength(1);
    expect(h.socket.sendCalls).toBe(0);
    expect(h.socket.closes).toEqual([]);
  });
});

describe("StreamLoop: a relay that breaks contiguity", () => {
  it("a sequence gap sends the parts accepted before it, then closes 1011", async () => {
    // The real relay always delivers contiguously; a hand-made one skips seq 3.
    const entries = [1, 2, 4, 5].map((seq) => Object.freeze({ seq, part: text(`p${seq}`), addedAt: T0 }));
    let unfollowed = 0;
    const gappy: EpisodeSource = (_hv, _ga, listener) => {
      queueMicrotask(() => listener(entries));
      return () => {
        unfollowed++;
      };
    };
    const h = harness();
    let ended = 0;
    const loop = new StreamLoop({
      chatId: CHAT,
      read: h.reader.read,
      parts: gappy,
      socket: h.socket,
      sleep: async () => {},
      ended: () => {
        ended++;
      },
    });
    h.reader.then_(BOOT);
    loop.start();
    await flush();
    expect(seqsOf(h.socket.events())).toEqual([1, 2]);
    expect(JSON.parse(h.socket.frames.at(-1)!)).toEqual([closing("internal", true)]);
    expect(h.socket.closes).toEqual([{ code: 1011, reason: expect.any(String) }]);
    expect(loop.ended).toBe(true);
    expect(ended).toBe(1);
    expect(unfollowed).toBe(1);
  });
});
