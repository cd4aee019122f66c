/**
 * Frames of the stream WebSocket: JSON arrays of events, each frame at most 4 MiB of UTF-8. Events
 * are encoded one by one and joined, so a batch is split between events, never inside one; an
 * event larger than the bound on its own (a huge message) goes alone in its frame.
 *
 * A part's `message_part` event is the same for every socket of the chat, so its encoding is cached
 * per buffered part: a thousand sockets encode each part once.
 */
import type { StreamPart } from "../wire/stream-part";
import { type BufferedPart, utf8ByteLength } from "../part-buffer/episode";
import type { ChatStreamEvent } from "../wire/stream-events";

export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** One event as JSON, with its UTF-8 size. */
export interface EncodedEvent {
  readonly json: string;
  readonly bytes: number;
}

export function encodeEvent(event: ChatStreamEvent): EncodedEvent {
  const json = JSON.stringify(event);
  return { json, bytes: utf8ByteLength(json) };
}

/**
 * Encodings of the events one snapshot produces, per payload object: loops that share a read
 * (durable-objects/chat-object/stream-sockets.ts) get the same message and queue objects, and a 1 MB message
 * must not be stringified once per socket.
 */
const payloadEvents = new WeakMap<object, EncodedEvent>();

/** `encodeEvent`, once per message or queue payload object. */
export function encodeSyncEvent(event: ChatStreamEvent): EncodedEvent {
  const payload = event.type === "message" ? event.message : event.type === "queue_update" ? event.queued_messages : null;
  if (payload === null) return encodeEvent(event);
  let encoded = payloadEvents.get(payload);
  if (encoded === undefined) {
    encoded = encodeEvent(event);
    payloadEvents.set(payload, encoded);
  }
  return encoded;
}

const snapshotFrames = new WeakMap<object, Map<string, string[]>>();

/**
 * The frames of one Sync, shared by every loop that applied the same snapshot from the same
 * cursors (they emit the same events): one set of frame strings however many sockets send it.
 */
export function sharedSyncFrames(snapshot: object, cursorsKey: string, build: () => string[]): string[] {
  let byCursors = snapshotFrames.get(snapshot);
  if (byCursors === undefined) {
    byCursors = new Map();
    snapshotFrames.set(snapshot, byCursors);
  }
  let frames = byCursors.get(cursorsKey);
  if (frames === undefined) {
    frames = build();
    byCursors.set(cursorsKey, frames);
  }
  return frames;
}

/** Joins encoded events into frames of at most `maxBytes` (brackets and commas included). */
export function framesOf(events: readonly EncodedEvent[], maxBytes = MAX_FRAME_BYTES): string[] {
  const frames: string[] = [];
  let batch: string[] = [];
  let bytes = 1; // "["; each event adds itself and one separator ("," or the closing "]")
  for (const e of events) {
    if (batch.length > 0 && bytes + e.bytes + 1 > maxBytes) {
      frames.push(`[${batch.join(",")}]`);
      batch = [];
      bytes = 1;
    }
    batch.push(e.json);
    bytes += e.bytes + 1;
  }
  if (batch.length > 0) frames.push(`[${batch.join(",")}]`);
  return frames;
}

const partEvents = new WeakMap<BufferedPart<StreamPart>, EncodedEvent>();

/** The `message_part` event of one buffered part, encoded once for every socket. */
export function encodePartEvent(
  chatId: string,
  historyVersion: number,
  generationAttempt: number,
  entry: BufferedPart<StreamPart>,
): EncodedEvent {
  let encoded = partEvents.get(entry);
  if (encoded === undefined) {
    encoded = encodeEvent({
      type: "message_part",
      chat_id: chatId,
      message_part: {
        role: "assistant",
        part: entry.part,
        history_version: historyVersion,
        generation_attempt: generationAttempt,
        seq: entry.seq,
      },
    });
    partEvents.set(entry, encoded);
  }
  return encoded;
}

const burstFrames = new WeakMap<readonly BufferedPart<StreamPart>[], string[]>();

/**
 * The frames of a whole burst of parts, built once per burst: the relay hands the same burst to
 * every loop on the episode, and each that accepts all of it sends the same strings.
 */
export function partBurstFrames(
  chatId: string,
  historyVersion: number,
  generationAttempt: number,
  burst: readonly BufferedPart<StreamPart>[],
): string[] {
  let frames = burstFrames.get(burst);
  if (frames === undefined) {
    frames = framesOf(burst.map((entry) => encodePartEvent(chatId, historyVersion, generationAttempt, entry)));
    burstFrames.set(burst, frames);
  }
  return frames;
}
