/**
 * The relay forwarder of the object's stream loops, shared per episode: one subscription to the
 * part buffer for every loop that follows the same (history_version, generation_attempt), each
 * burst handed to all of them synchronously. A thousand sockets on one chat cost one subscription,
 * not a thousand async readers woken per part.
 *
 * A loop that starts following mid-episode first gets the parts handed out so far (from the
 * episode's own array, seq 1 onwards), then every later burst: both happen between two awaits of
 * the shared reader, so nothing falls between them. Each loop still judges every part against its
 * own cursors (the spec's Part operation); the relay only moves parts.
 *
 * Woken by a part, the relay lets the current turn of the event loop finish before it takes the
 * burst, so parts that are already waiting go out with it. The first burst after a quiet spell
 * (the first token among them) costs just that turn. While a stream is busy (the previous burst's
 * send ended less than GATHER_MS before the wake) the relay goes on gathering turn by turn until
 * QUIET_TURNS turns in a row bring nothing, MAX_BURST parts are in, or GATHER_MS have passed: a
 * saturated object sends fewer, larger frames instead of falling further behind. When the object
 * is behind (that send alone took GATHER_MS or more, as with a thousand sockets) quiet turns say
 * nothing, since the parts are waiting in the network, so the relay sleeps out the GATHER_MS and
 * takes what came.
 *
 * One turn used to be enough to gather a busy stream: under workerd 1.20260426 every read of an
 * already-buffered body ran before a timer. Under 1.20261117 a timer turn runs between any two
 * such reads, so a turn brings one part at most and often none, and waiting a single turn sent one
 * part per frame (fourteen times the frames and nine times the CPU in bench:relay at 200 sockets;
 * see docs/bench.md).
 */
import type { StreamPart } from "../wire/stream-part";
import { errorText, logger } from "../log/log";
import type { BufferedPart } from "../part-buffer/episode";
import { episodeKey, type PartBuffer } from "../part-buffer/part-buffer";
import type { PartSubscription } from "../part-buffer/part-subscription";
import { nextTask } from "../next-task";

/** Parts taken from the buffer in one go. */
export const MAX_BURST = 512;
/**
 * A busy stream's bursts are gathered for at most this long from the first turn after the wake:
 * a frame of a 60 Hz display, so a reader never sees a stream held back by more than one repaint.
 * (workerd's clock moves only at I/O, which is what brings a busy stream's parts.)
 */
export const GATHER_MS = 16;
/** Turns in a row that bring no part before a busy stream's burst goes out. */
export const QUIET_TURNS = 2;

export interface RelayTiming {
  /** What the relay awaits for a turn of the event loop (default nextTask). */
  coalesce?: () => Promise<void>;
  /** A timer of `ms` (default setTimeout). */
  sleep?: (ms: number) => Promise<void>;
  /** The clock (default Date.now). */
  now?: () => number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export type PartsListener = (burst: readonly BufferedPart<StreamPart>[]) => void;

export class EpisodeRelays {
  readonly #relays = new Map<string, Relay>();

  constructor(
    private readonly buffer: PartBuffer<StreamPart>,
    private readonly chatId: () => string,
    private readonly timing: RelayTiming = {},
  ) {}

  /** Follows an episode: `listener` gets its parts from seq 1, in bursts. Returns the unfollow. */
  follow(historyVersion: number, generationAttempt: number, listener: PartsListener): () => void {
    const id = `${historyVersion}:${generationAttempt}`;
    let relay = this.#relays.get(id);
    if (!relay) {
      const key = episodeKey(this.chatId(), historyVersion, generationAttempt);
      const timing = { coalesce: nextTask, sleep, now: Date.now, ...this.timing };
      relay = new Relay(this.buffer, key, timing, () => this.#relays.delete(id));
      this.#relays.set(id, relay);
    }
    return relay.add(listener);
  }

  /** Episodes followed right now (for tests and memory accounting). */
  get size(): number {
    return this.#relays.size;
  }
}

class Relay {
  readonly #listeners = new Set<PartsListener>();
  /** The highest seq handed to the listeners. */
  #delivered = 0;
  /** When the last burst's sending began, and the first clock reading after it (null: none yet). */
  #sentAt = Number.NEGATIVE_INFINITY;
  #sendEndAt: number | null = Number.NEGATIVE_INFINITY;
  #subscription: PartSubscription<StreamPart>;
  #stopped = false;

  constructor(
    private readonly buffer: PartBuffer<StreamPart>,
    private readonly key: ReturnType<typeof episodeKey>,
    private readonly timing: Required<RelayTiming>,
    private readonly forget: () => void,
  ) {
    this.#subscription = buffer.subscribe(key);
    void this.#pump(this.#subscription);
  }

  add(listener: PartsListener): () => void {
    this.#listeners.add(listener);
    if (this.#delivered > 0) {
      // getParts copies the episode's array; the first `delivered` entries are the ones handed out.
      const past = this.#pastParts();
      if (past.length > 0) deliver(listener, past);
    }
    return () => {
      if (!this.#listeners.delete(listener) || this.#listeners.size > 0) return;
      this.#stopped = true;
      this.#subscription.close();
      this.forget();
    };
  }

  #pastParts(): BufferedPart<StreamPart>[] {
    try {
      return this.buffer.getParts(this.key).slice(0, this.#delivered);
    } catch {
      return []; // collected meanwhile
    }
  }

  async #pump(subscription: PartSubscription<StreamPart>): Promise<void> {
    for (;;) {
      const next = await subscription.next();
      if (this.#stopped || subscription !== this.#subscription) return;
      if (next.done) {
        // A reader closed as slow (the isolate was blocked for the deadline) starts over from seq 1;
        // what was already handed out is skipped below. Any other end: the episode is over.
        if (next.value !== "slow") return;
        this.#subscription = this.buffer.subscribe(this.key);
        subscription = this.#subscription;
        continue;
      }
      let burst = await this.#gather(subscription, next.value);
      if (burst === null) return;
      if (burst[0]!.seq <= this.#delivered) burst = burst.filter((p) => p.seq > this.#delivered);
      if (burst.length === 0) continue;
      this.#delivered = burst[burst.length - 1]!.seq;
      this.#sentAt = this.timing.now();
      for (const listener of this.#listeners) deliver(listener, burst);
      // The clock stood still while the burst went out: the next turn's reading says how long it took.
      this.#sendEndAt = null;
      void this.timing.coalesce().then(() => {
        this.#sendEndAt ??= this.timing.now();
      });
    }
  }

  /**
   * The burst that starts with `first`: what is ready after one turn, and while the stream is busy,
   * what the next turns bring until it pauses (or what GATHER_MS bring, when the object is behind).
   * null: the relay stopped or started over meanwhile.
   */
  async #gather(subscription: PartSubscription<StreamPart>, first: BufferedPart<StreamPart>): Promise<BufferedPart<StreamPart>[] | null> {
    const burst = [first];
    const wokeAt = this.timing.now();
    this.#sendEndAt ??= wokeAt;
    const busy = wokeAt - this.#sendEndAt < GATHER_MS;
    const behind = busy && this.#sendEndAt - this.#sentAt >= GATHER_MS;
    const take = (): number => {
      const more = subscription.takeReady(MAX_BURST - burst.length);
      for (const part of more) burst.push(part);
      return more.length;
    };
    const gone = () => this.#stopped || subscription !== this.#subscription;

    await this.timing.coalesce();
    if (gone()) return null;
    const firstTake = take();
    if (!busy) return burst;
    if (behind) {
      if (burst.length < MAX_BURST) await this.timing.sleep(GATHER_MS);
      if (gone()) return null;
      take();
      return burst;
    }
    const deadline = this.timing.now() + GATHER_MS;
    let quietTurns = firstTake === 0 ? 1 : 0;
    while (quietTurns < QUIET_TURNS && burst.length < MAX_BURST && this.timing.now() < deadline) {
      await this.timing.coalesce();
      if (gone()) return null;
      quietTurns = take() === 0 ? quietTurns + 1 : 0;
    }
    return burst;
  }
}

function deliver(listener: PartsListener, burst: readonly BufferedPart<StreamPart>[]): void {
  try {
    listener(burst);
  } catch (err) {
    logger.error("relay_listener_failed", { error: errorText(err) });
  }
}
