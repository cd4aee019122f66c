/**
 * The stream loop of one `GET /chats/{chat}/stream` WebSocket (spec "Stream loop"): its local
 * state, its two operations run one at a time (Sync and Part), and its relay target. The relay
 * itself follows the object's own part buffer (the object that owns the chat is the only place
 * its parts exist), shared by every loop on the same episode (episode-relays.ts).
 *
 * Operations queue while a Sync waits on the database; queued Syncs merge into one (one fetch at
 * the current state covers every hint that asked for one). Parts come in bursts: each part is
 * judged, and the accepted ones go out in one frame; when the loop is idle that happens at once,
 * inside the relay's delivery, without queueing.
 */
import type { StreamPart } from "../wire/stream-part";
import { type StreamClosingError, streamClosingEvent } from "../wire/stream-events";
import { errorText, logger } from "../log/log";
import type { BufferedPart } from "../part-buffer/episode";
import { judgePartAt } from "./part-op";
import { type EncodedEvent, encodePartEvent, encodeSyncEvent, framesOf, partBurstFrames, sharedSyncFrames } from "./stream-frames";
import { applySnapshot, hintsCallForFetch } from "./sync";
import type { SyncReader } from "./sync-snapshot";
import { NULL_CURSORS, type RelayTarget, type StreamCursors, type SyncHints } from "./sync-state";

/** Close codes of the stream WebSocket. */
export const STREAM_CLOSE = {
  /** The server is going away or the client asked to stop. */
  normal: 1000,
  /** The database stayed unreachable after retries, or the loop broke an invariant. */
  internal: 1011,
  /** The chat no longer exists. */
  chatGone: 4404,
} as const;

export interface StreamSocket {
  send(frame: string): void;
  close(code: number, reason: string): void;
}

/**
 * Follows an episode of the object's part buffer: the listener gets its parts from seq 1, in
 * bursts, until the returned function unfollows.
 */
export type EpisodeSource = (
  historyVersion: number,
  generationAttempt: number,
  listener: (burst: readonly BufferedPart<StreamPart>[]) => void,
) => () => void;

export interface StreamLoopOptions {
  chatId: string;
  read: SyncReader;
  parts: EpisodeSource;
  socket: StreamSocket;
  /** Cursors to start from: a resuming client's, or a hibernated socket's. Default: the null state. */
  cursors?: StreamCursors;
  /** Called after every Sync that moved the cursors (the object keeps them in the socket's attachment). */
  saved?(cursors: Readonly<StreamCursors>): void;
  /** Called once when the loop ends, whatever the cause. */
  ended?(): void;
  sleep(ms: number): Promise<void>;
  /** Database attempts per Sync before the loop gives up (spec: "database failure after bounded retry"). */
  readAttempts?: number;
}

type Op =
  | { kind: "sync"; force: boolean; hints: SyncHints[] }
  | { kind: "parts"; target: RelayTarget; batch: readonly BufferedPart<StreamPart>[] };

const READ_BACKOFF_MS = [100, 500, 2_000];

export class StreamLoop {
  #cursors: StreamCursors;
  #known = new Map<number, number>();
  readonly #ops: Op[] = [];
  #busy = false;
  #relay: { target: RelayTarget; unfollow: () => void } | null = null;
  #ended = false;

  constructor(private readonly options: StreamLoopOptions) {
    this.#cursors = { ...(options.cursors ?? NULL_CURSORS) };
  }

  get cursors(): Readonly<StreamCursors> {
    return this.#cursors;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** The bootstrap: an unconditional fetch, applied like any other. */
  start(): void {
    this.#enqueue({ kind: "sync", force: true, hints: [] });
  }

  /** Sync(hints), from a notification or the sync poller. */
  sync(hints: SyncHints): void {
    this.#enqueue({ kind: "sync", force: false, hints: [hints] });
  }

  /** Sync without the hint check (a socket restored after hibernation catches up this way). */
  resync(): void {
    this.#enqueue({ kind: "sync", force: true, hints: [] });
  }

  /** The client went away: stop without closing (the socket is already closed). */
  stop(): void {
    this.#end(null);
  }

  #enqueue(op: Op): void {
    if (this.#ended) return;
    const last = this.#ops.at(-1);
    if (op.kind === "sync" && last?.kind === "sync") {
      last.force ||= op.force;
      last.hints.push(...op.hints);
    } else {
      this.#ops.push(op);
    }
    if (!this.#busy) void this.#drain();
  }

  async #drain(): Promise<void> {
    this.#busy = true;
    try {
      for (let op = this.#ops.shift(); op !== undefined && !this.#ended; op = this.#ops.shift()) {
        if (op.kind === "sync") await this.#sync(op.force, op.hints);
        else this.#parts(op.target, op.batch);
      }
    } catch (err) {
      logger.error("stream_loop_failed", { chat_id: this.options.chatId, error: errorText(err) });
      this.#end({ code: STREAM_CLOSE.internal, reason: "internal error" });
    } finally {
      this.#busy = false;
    }
  }

  async #sync(force: boolean, hints: readonly SyncHints[]): Promise<void> {
    if (!force && !hints.some((h) => hintsCallForFetch(this.#cursors, h))) return;
    const snapshot = await this.#read();
    if (snapshot === undefined) return; // the loop ended
    if (snapshot === null) {
      this.#end({
        code: STREAM_CLOSE.chatGone,
        reason: "chat not found",
        error: { code: "not_found", message: "The chat no longer exists." },
      });
      return;
    }
    const before = JSON.stringify(this.#cursors);
    const result = applySnapshot(this.options.chatId, this.#cursors, this.#known, snapshot);
    if (result === null) return;
    this.#cursors = result.cursors;
    this.#known = result.known;
    // Loops at the same cursors emit the same events from a shared snapshot: frame them once.
    // (The known-message maps may differ after a hibernation, but only below history_version,
    // which message sync never reads; see sync-state.ts.)
    this.#sendFrames(sharedSyncFrames(snapshot, before, () => framesOf(result.events.map(encodeSyncEvent))));
    if (this.#ended) return; // the write failed: no relay (it would outlive the loop), nothing to save
    if (result.relay) this.#configureRelay(result.relay);
    this.options.saved?.({ ...this.#cursors });
  }

  /** The fetch, retried; undefined once the loop has ended (database unreachable, or stopped meanwhile). */
  async #read() {
    const attempts = this.options.readAttempts ?? READ_BACKOFF_MS.length + 1;
    for (let attempt = 1; ; attempt++) {
      try {
        const snapshot = await this.options.read(this.options.chatId, this.#cursors);
        return this.#ended ? undefined : snapshot;
      } catch (err) {
        logger.warn("stream_sync_read_failed", {
          chat_id: this.options.chatId,
          attempt,
          error: errorText(err),
        });
        if (attempt >= attempts) {
          this.#end({
            code: STREAM_CLOSE.internal,
            reason: "database unavailable",
            error: { code: "internal", message: "The chat's state could not be read; reconnect to resume." },
          });
          return undefined;
        }
        await this.options.sleep(READ_BACKOFF_MS[Math.min(attempt - 1, READ_BACKOFF_MS.length - 1)] ?? 1_000);
        if (this.#ended) return undefined;
      }
    }
  }

  /** Part(history_version, generation_attempt, seq, content) for each part of a burst. */
  #parts(target: RelayTarget, burst: readonly BufferedPart<StreamPart>[]): void {
    if (this.#acceptsWhole(target, burst)) {
      // The usual case, decided once for the burst (each part would pass the same four checks):
      // every loop on the episode accepts it, so its frames are built once and shared.
      this.#cursors.lastPartSeq = burst[burst.length - 1]!.seq;
      this.#sendFrames(partBurstFrames(this.options.chatId, target.historyVersion, target.generationAttempt, burst));
      return;
    }
    const accepted: EncodedEvent[] = [];
    for (const entry of burst) {
      const verdict = judgePartAt(this.#cursors, target.historyVersion, target.generationAttempt, entry.seq);
      if (verdict === "gap") {
        logger.error("stream_part_gap", { chat_id: this.options.chatId, expected: this.#cursors.lastPartSeq + 1, got: entry.seq });
        this.#send(accepted);
        this.#end({
          code: STREAM_CLOSE.internal,
          reason: "part sequence gap",
          error: { code: "internal", message: "The stream lost its place in the model's output; reconnect to resume." },
        });
        return;
      }
      if (verdict !== "accept") continue;
      accepted.push(encodePartEvent(this.options.chatId, target.historyVersion, target.generationAttempt, entry));
      this.#cursors.lastPartSeq = entry.seq;
    }
    this.#send(accepted);
  }

  /** The burst is contiguous and its first part is the next one of the loop's current, live episode. */
  #acceptsWhole(target: RelayTarget, burst: readonly BufferedPart<StreamPart>[]): boolean {
    const first = burst[0];
    const last = burst[burst.length - 1];
    if (first === undefined || last === undefined) return false;
    const next = judgePartAt(this.#cursors, target.historyVersion, target.generationAttempt, first.seq);
    return next === "accept" && last.seq - first.seq === burst.length - 1;
  }

  /**
   * Step 9's relay configuration: a null worker stops the relay; another worker reconnects; another
   * episode of the same worker switches to it. The same target again changes nothing (an episode
   * that was sent and closed is not replayed).
   */
  #configureRelay(target: RelayTarget): void {
    const current = this.#relay;
    if (
      current &&
      current.target.workerId === target.workerId &&
      current.target.historyVersion === target.historyVersion &&
      current.target.generationAttempt === target.generationAttempt
    )
      return;
    current?.unfollow();
    this.#relay = null;
    if (target.workerId === null) return;
    const relay: { target: RelayTarget; unfollow: () => void } = { target, unfollow: () => {} };
    this.#relay = relay;
    relay.unfollow = this.options.parts(target.historyVersion, target.generationAttempt, (burst) => {
      if (this.#relay !== relay) return;
      // Nothing ahead of it (the usual case): the Part operation runs now, inside the relay's
      // delivery, and no operation object is made for it.
      if (!this.#busy && this.#ops.length === 0 && !this.#ended) this.#parts(target, burst);
      else this.#enqueue({ kind: "parts", target, batch: burst });
    });
  }

  #send(events: readonly EncodedEvent[]): void {
    if (events.length > 0) this.#sendFrames(framesOf(events));
  }

  #sendFrames(frames: readonly string[]): void {
    if (frames.length === 0 || this.#ended) return;
    try {
      // Indexed: this runs once per socket per burst, and an iterator per call was garbage by the
      // hundred thousand in a turn to 200 sockets (a heap profile of bench:relay).
      for (let i = 0; i < frames.length; i++) this.options.socket.send(frames[i]!);
    } catch (err) {
      // "WebSocket write failure" ends the loop.
      logger.info("stream_write_failed", { chat_id: this.options.chatId, error: errorText(err) });
      this.#end(null);
    }
  }

  /**
   * Ends the loop once: stops the relay, and closes the socket when `close` is given, after a frame
   * holding the closing `error` event when it has one.
   */
  #end(close: { code: number; reason: string; error?: { code: StreamClosingError["code"]; message: string } } | null): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#ops.length = 0;
    this.#relay?.unfollow();
    this.#relay = null;
    if (close) {
      try {
        if (close.error) {
          const event = streamClosingEvent(this.options.chatId, close.error.code, close.error.message);
          this.options.socket.send(`[${JSON.stringify(event)}]`);
        }
        this.options.socket.close(close.code, close.reason);
      } catch {
        // already closed
      }
    }
    this.options.ended?.();
  }
}
