import { describe, expect, it } from "vitest";
import type { StreamPart } from "../../../src/wire/stream-part";
import { type BufferedPart, episodeKey, PartBuffer, utf8ByteLength } from "../../../src/part-buffer/part-buffer";
import type { ChatStreamEvent } from "../../../src/wire/stream-events";
import {
  type EncodedEvent,
  encodeEvent,
  encodePartEvent,
  encodeSyncEvent,
  framesOf,
  MAX_FRAME_BYTES,
  sharedSyncFrames,
} from "../../../src/stream/stream-frames";

const CHAT = "0b6c1f7e-4a39-4f2e-9a52-1c1f3c1e2d10";

/** The real UTF-8 size, independently of the code under test. */
const bytesOf = (s: string) => Buffer.byteLength(s, "utf8");

/** A status-free event whose JSON holds `text` (so its size is easy to steer). */
function partEvent(text: string, seq = 1): ChatStreamEvent {
  return {
    type: "message_part",
    chat_id: CHAT,
    message_part: { role: "assistant", part: { type: "text", text }, history_version: 1, generation_attempt: 1, seq },
  };
}

/** An encoded event of exactly `bytes` UTF-8 bytes, padded with `fill` (1 to 4 bytes per character). */
function eventOfBytes(bytes: number, fill = "é", seq = 1): EncodedEvent {
  const base = bytesOf(JSON.stringify(partEvent("", seq)));
  const unit = bytesOf(fill);
  let pad = "";
  let size = base;
  while (size + unit <= bytes) {
    pad += fill;
    size += unit;
  }
  pad += "x".repeat(bytes - size); // ASCII for the remainder
  const encoded = encodeEvent(partEvent(pad, seq));
  expect(bytesOf(encoded.json)).toBe(bytes);
  return encoded;
}

/** The frame size framesOf must reckon with: brackets and one comma between events. */
const frameBytes = (events: readonly EncodedEvent[]) => 2 + events.reduce((n, e) => n + e.bytes, 0) + (events.length - 1);

function parseFrames(frames: readonly string[]): ChatStreamEvent[][] {
  return frames.map((f) => {
    const parsed = JSON.parse(f) as unknown;
    expect(Array.isArray(parsed)).toBe(true);
    return parsed as ChatStreamEvent[];
  });
}

describe("encodeEvent", () => {
  it("counts UTF-8 bytes, not UTF-16 units", () => {
    for (const text of ["plain", "é", "€uro", "😀 emoji", "mixed é€😀", "\u0000\u001f control", "lone \ud800 surrogate"]) {
      const e = encodeEvent(partEvent(text));
      expect(e.json).toBe(JSON.stringify(partEvent(text)));
      expect(e.bytes).toBe(bytesOf(e.json));
      expect(e.bytes).toBe(utf8ByteLength(e.json));
    }
    const ascii = encodeEvent(partEvent("aaaa"));
    expect(encodeEvent(partEvent("😀😀")).bytes).toBe(ascii.bytes + 4); // 2 × 4 bytes in place of 4 × 1
    expect(encodeEvent(partEvent("éé")).bytes).toBe(ascii.bytes);
  });
});

describe("framesOf", () => {
  it("no events, no frames", () => {
    expect(framesOf([])).toEqual([]);
  });

  it("puts several events in one frame as a JSON array, in order", () => {
    const events: ChatStreamEvent[] = [
      { type: "history_reset", chat_id: CHAT },
      { type: "status", chat_id: CHAT, status: { status: "running" } },
      partEvent("héllo 😀", 1),
      { type: "preview_reset", chat_id: CHAT },
    ];
    const frames = framesOf(events.map(encodeEvent));
    expect(frames).toHaveLength(1);
    expect(frames[0]).toBe(JSON.stringify(events));
    expect(JSON.parse(frames[0]!)).toEqual(events);
  });

  it("a single event is still an array", () => {
    const frames = framesOf([encodeEvent({ type: "preview_reset", chat_id: CHAT })]);
    expect(frames).toEqual([`[${JSON.stringify({ type: "preview_reset", chat_id: CHAT })}]`]);
  });

  it("splits exactly at the bound: a frame of maxBytes bytes is allowed, one more byte is not", () => {
    // Multi-byte padding of each kind, so a count in UTF-16 units would be wrong.
    const a = eventOfBytes(300, "é", 1); // 2-byte characters
    const b = eventOfBytes(320, "€", 2); // 3-byte characters
    const c = eventOfBytes(340, "😀", 3); // 4-byte characters (surrogate pairs)
    const d = eventOfBytes(280, "x", 4);
    const all = [a, b, c, d];
    for (const e of all) expect(e.json.length).toBeLessThanOrEqual(e.bytes);
    expect(c.json.length).toBeLessThan(c.bytes);

    // [a,b,c] is 2 + 300 + 320 + 340 + 2 = 964 bytes.
    const exact = frameBytes([a, b, c]);
    expect(exact).toBe(964);

    const atBound = framesOf(all, exact);
    expect(atBound).toHaveLength(2);
    expect(bytesOf(atBound[0]!)).toBe(exact);
    expect(atBound).toEqual([`[${a.json},${b.json},${c.json}]`, `[${d.json}]`]);

    const oneLess = framesOf(all, exact - 1);
    expect(oneLess).toEqual([`[${a.json},${b.json}]`, `[${c.json},${d.json}]`]);
    expect(bytesOf(oneLess[0]!)).toBe(frameBytes([a, b]));

    // Everything fits exactly: one frame.
    expect(framesOf(all, frameBytes(all))).toEqual([`[${all.map((e) => e.json).join(",")}]`]);
    expect(framesOf(all, frameBytes(all) - 1)).toHaveLength(2);
  });

  it("every frame is within the bound, greedy, and the frames hold every event in order", () => {
    const fills = ["x", "é", "€", "😀"];
    const events = Array.from({ length: 40 }, (_, i) => eventOfBytes(250 + ((i * 37) % 200), fills[i % 4], i + 1));
    for (let maxBytes = 460; maxBytes <= 2500; maxBytes += 7) {
      const frames = framesOf(events, maxBytes);
      const parsed = parseFrames(frames);
      expect(parsed.flat()).toEqual(events.map((e) => JSON.parse(e.json)));
      let i = 0;
      for (const [k, frame] of frames.entries()) {
        const size = bytesOf(frame);
        const inFrame = events.slice(i, i + parsed[k]!.length);
        expect(size).toBe(frameBytes(inFrame));
        expect(size).toBeLessThanOrEqual(maxBytes);
        i += inFrame.length;
        // Greedy: the next event would not have fit.
        const next = events[i];
        if (next !== undefined) expect(size + 1 + next.bytes).toBeGreaterThan(maxBytes);
      }
    }
  });

  it("an event bigger than the bound goes alone in its frame", () => {
    const small1 = eventOfBytes(250, "é", 1);
    const big = eventOfBytes(2_000, "😀", 2);
    const small2 = eventOfBytes(250, "€", 3);
    const small3 = eventOfBytes(250, "x", 4);
    const max = 800;
    expect(framesOf([big], max)).toEqual([`[${big.json}]`]);
    expect(framesOf([small1, big, small2, small3], max)).toEqual([`[${small1.json}]`, `[${big.json}]`, `[${small2.json},${small3.json}]`]);
    expect(framesOf([big, big], max)).toEqual([`[${big.json}]`, `[${big.json}]`]);
    // Just over the bound on its own (the brackets count): alone too.
    const edge = eventOfBytes(max - 1, "é", 5);
    expect(framesOf([small1, edge, small2], max)).toEqual([`[${small1.json}]`, `[${edge.json}]`, `[${small2.json}]`]);
    const fits = eventOfBytes(max - 2, "é", 6);
    expect(bytesOf(framesOf([fits], max)[0]!)).toBe(max);
  });

  it("the default bound is 4 MiB of UTF-8", () => {
    expect(MAX_FRAME_BYTES).toBe(4 * 1024 * 1024);
    const half = Math.floor((MAX_FRAME_BYTES - 3) / 2); // "[" + a + "," + b + "]"
    const a = eventOfBytes(half, "€", 1);
    const b = eventOfBytes(MAX_FRAME_BYTES - 3 - half, "😀", 2);
    const exact = framesOf([a, b]);
    expect(exact).toHaveLength(1);
    expect(bytesOf(exact[0]!)).toBe(MAX_FRAME_BYTES);

    const b1 = eventOfBytes(MAX_FRAME_BYTES - 3 - half + 1, "😀", 2);
    const split = framesOf([a, b1]);
    expect(split).toHaveLength(2);
    expect(split.map(bytesOf)).toEqual([a.bytes + 2, b1.bytes + 2]);
  });
});

describe("encodePartEvent", () => {
  function bufferWithParts(...parts: StreamPart[]) {
    const buffer = new PartBuffer<StreamPart>({ now: () => 0 });
    const key = episodeKey(CHAT, 4, 2);
    buffer.createEpisode(key);
    for (const p of parts) buffer.addPart(key, p);
    return { buffer, key };
  }

  it("encodes the message_part event of a buffered part", () => {
    const part: StreamPart = { type: "text", text: "héllo 😀" };
    const { buffer, key } = bufferWithParts({ type: "text", text: "first" }, part);
    const entry = buffer.getParts(key)[1]!;
    const encoded = encodePartEvent(CHAT, 4, 2, entry);
    expect(JSON.parse(encoded.json)).toEqual({
      type: "message_part",
      chat_id: CHAT,
      message_part: { role: "assistant", part, history_version: 4, generation_attempt: 2, seq: 2 },
    });
    expect(encoded.bytes).toBe(bytesOf(encoded.json));
  });

  it("returns the same object for the same buffered part, whoever reads it", async () => {
    const { buffer, key } = bufferWithParts({ type: "text", text: "a" }, { type: "reasoning", text: "b" });
    const s1 = buffer.subscribe(key);
    const s2 = buffer.subscribe(key);
    const e1 = (await s1.next()).value as BufferedPart<StreamPart>;
    const e2 = (await s2.next()).value as BufferedPart<StreamPart>;
    expect(e1).toBe(e2);
    const first = encodePartEvent(CHAT, 4, 2, e1);
    expect(encodePartEvent(CHAT, 4, 2, e2)).toBe(first);
    expect(encodePartEvent(CHAT, 4, 2, buffer.getParts(key)[0]!)).toBe(first);

    const other = encodePartEvent(CHAT, 4, 2, buffer.getParts(key)[1]!);
    expect(other).not.toBe(first);
    expect(JSON.parse(other.json).message_part.seq).toBe(2);
  });

  it("caches by the buffered part object, not by its content", () => {
    const same: StreamPart = { type: "text", text: "same" };
    const a: BufferedPart<StreamPart> = Object.freeze({ seq: 1, part: same, addedAt: 0 });
    const b: BufferedPart<StreamPart> = Object.freeze({ seq: 1, part: { ...same }, addedAt: 0 });
    const ea = encodePartEvent(CHAT, 1, 1, a);
    const eb = encodePartEvent(CHAT, 1, 1, b);
    expect(eb).not.toBe(ea);
    expect(eb).toEqual(ea);
  });
});

describe("sharing a Sync's encodings between sockets", () => {
  const message = {
    id: 1,
    chat_id: "c",
    role: "assistant" as const,
    content: [{ type: "text" as const, text: "x".repeat(1_000) }],
    revision: 3,
    queued_message_id: null,
    model_config_id: null,
    reasoning_effort: null,
    created_by: null,
    created_at: "2026-11-30T00:00:00.000Z",
    usage: null,
  };

  it("encodes a message or queue payload once per payload object", () => {
    const a = encodeSyncEvent({ type: "message", chat_id: "c", message });
    const b = encodeSyncEvent({ type: "message", chat_id: "c", message });
    expect(b).toBe(a);
    expect(JSON.parse(a.json).message.id).toBe(1);
    const copy = encodeSyncEvent({ type: "message", chat_id: "c", message: { ...message } });
    expect(copy).not.toBe(a);
    const queue: never[] = [];
    expect(encodeSyncEvent({ type: "queue_update", chat_id: "c", queued_messages: queue })).toBe(
      encodeSyncEvent({ type: "queue_update", chat_id: "c", queued_messages: queue }),
    );
  });

  it("builds one set of frames per snapshot and starting cursors", () => {
    const snapshot = {};
    let built = 0;
    const build = () => {
      built++;
      return ["[]"];
    };
    const first = sharedSyncFrames(snapshot, "k1", build);
    expect(sharedSyncFrames(snapshot, "k1", build)).toBe(first);
    sharedSyncFrames(snapshot, "k2", build);
    sharedSyncFrames({}, "k1", build);
    expect(built).toBe(3);
  });
});
