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
 * Woken by a part, the relay lets the current task finish before it takes the burst: when the
 * object is busy, the model's chunks that are already waiting are added first and go out together,
 * so a saturated object sends fewer, larger frames instead of falling further behind; when it is
 * idle this costs one turn of the event loop.
 */
import type { StreamPart } from "../wire/stream-part";
import { errorText, logger } from "../log/log";
import type { BufferedPart } from "../part-buffer/episode";
import { episodeKey, type PartBuffer } from "../part-buffer/part-buffer";
import type { PartSubscription } from "../part-buffer/part-subscription";
import { nextTask } from "../next-task";

/** Parts taken from the buffer in one go. */
const MAX_BURST = 512;

export type PartsListener = (burst: readonly BufferedPart<StreamPart>[]) => void;

export class EpisodeRelays {
  readonly #relays = new Map<string, Relay>();

  constructor(
    private readonly buffer: PartBuffer<StreamPart>,
    private readonly chatId: () => string,
    /** What the relay awaits between a wake-up and taking the burst. */
    private readonly coalesce: () => Promise<void> = nextTask,
  ) {}

  /** Follows an episode: `listener` gets its parts from seq 1, in bursts. Returns the unfollow. */
  follow(historyVersion: number, generationAttempt: number, listener: PartsListener): () => void {
    const id = `${historyVersion}:${generationAttempt}`;
    let relay = this.#relays.get(id);
    if (!relay) {
      const key = episodeKey(this.chatId(), historyVersion, generationAttempt);
      relay = new Relay(this.buffer, key, this.coalesce, () => this.#relays.delete(id));
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
  #subscription: PartSubscription<StreamPart>;
  #stopped = false;

  constructor(
    private readonly buffer: PartBuffer<StreamPart>,
    private readonly key: ReturnType<typeof episodeKey>,
    private readonly coalesce: () => Promise<void>,
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
      await this.coalesce();
      if (this.#stopped || subscription !== this.#subscription) return;
      let burst = [next.value, ...subscription.takeReady(MAX_BURST - 1)];
      if (burst[0]!.seq <= this.#delivered) burst = burst.filter((p) => p.seq > this.#delivered);
      if (burst.length === 0) continue;
      this.#delivered = burst[burst.length - 1]!.seq;
      for (const listener of this.#listeners) deliver(listener, burst);
    }
  }
}

function deliver(listener: PartsListener, burst: readonly BufferedPart<StreamPart>[]): void {
  try {
    listener(burst);
  } catch (err) {
    logger.error("relay_listener_failed", { error: errorText(err) });
  }
}
