/**
 * The spec's Message part buffer (spec "Message part buffer", docs/architecture.md), as an in-memory
 * structure owned by the chat's Durable Object (docs/edge-mapping.md).
 *
 * Episodes are keyed by (chat_id, history_version, generation_attempt). Each holds the parts of one
 * generation attempt, capped at `maxEpisodeBytes` of JSON (UTF-8 bytes), plus the model invocation
 * stamp. Subscribers (the parts endpoint, the stream loop) read an episode from
 * seq 1, then live, until it closes.
 *
 * No timers of its own. Two things are due at instants: collecting closed episodes (15 s after
 * the close, once no subscriber holds them) and closing subscribers that leave a part untaken for
 * 10 s. The owner drives both from its single alarm: the ChatObject passes
 * `requestTick: () => clock.arm()`, its AlarmClock (durable-objects/chat-object/alarm-clock.ts) counts
 * `nextDeadline()` among its sources, and its alarm handler calls `tick(now)`.
 *
 * `requestTick(at)` is called whenever a deadline appears that is earlier than every instant
 * requested since the last `tick`; the owner must then run `tick()` no later than `at` (earlier or
 * extra ticks are harmless). `nextDeadline()` gives the same instant on demand.
 *
 * Errors are thrown, as the typed errors of ./errors.ts (all `PartBufferError`). The hot path is
 * `addPart`, whose errors the model step ignores (storing parts is best-effort); throwing keeps
 * its success path a plain call and matches the rest of the code base (chatstate errors).
 *
 * Single-threaded by construction (one isolate, one event loop): every method runs to completion,
 * so the spec's races between create and close cannot interleave inside a call.
 */
import { type BufferedPart, copyEpisodeKey, Episode, type EpisodeInfo, type EpisodeKey, episodeId, serializedPartBytes } from "./episode";
import { EpisodeClosedError, EpisodeExistsError, EpisodeFullError, EpisodeNotFoundError } from "./errors";
import { type PartSubscription, Subscription, type SubscriptionHost } from "./part-subscription";

export {
  type BufferedPart,
  type EpisodeInfo,
  type EpisodeKey,
  episodeKey,
  formatEpisodeKey,
  serializedPartBytes,
  utf8ByteLength,
} from "./episode";
export {
  EpisodeClosedError,
  EpisodeExistsError,
  EpisodeFullError,
  EpisodeNotFoundError,
  isPartBufferError,
  PART_BUFFER_ERROR_CODES,
  PartBufferError,
  type PartBufferErrorCode,
} from "./errors";
export type { PartIteratorResult, PartSubscription, SubscriptionCloseReason } from "./part-subscription";

/** The spec's cap on one episode's parts: 1 MB of serialized JSON, counted in UTF-8 bytes. */
export const MAX_EPISODE_BYTES = 1_000_000;
/** The spec: closed episodes are collected at least 15 s after they closed (and only without subscribers). */
export const CLOSED_EPISODE_TTL_MS = 15_000;
/** The spec: a subscriber must accept each part within 10 s or its subscription is closed. */
export const SUBSCRIBER_DEADLINE_MS = 10_000;

export interface PartBufferOptions {
  /** The clock, in milliseconds (Date.now in production, a fake in tests). */
  now: () => number;
  maxEpisodeBytes?: number;
  closedEpisodeTtlMs?: number;
  subscriberDeadlineMs?: number;
  /** Asks the owner to run `tick()` no later than `at` (see the module comment). */
  requestTick?: (at: number) => void;
}

export interface TickResult {
  /** Subscriptions closed as slow by this tick. */
  readonly slowClosed: number;
  /** Episodes collected by this tick. */
  readonly collected: EpisodeKey[];
  /** `nextDeadline()` after the tick. */
  readonly nextDeadline: number | null;
}

export interface PartBufferStats {
  readonly episodes: number;
  readonly openEpisodes: number;
  readonly bytes: number;
  readonly parts: number;
  /** Active subscriptions, attached or waiting for their episode to be created. */
  readonly subscriptions: number;
}

export class PartBuffer<P = unknown> {
  readonly maxEpisodeBytes: number;
  readonly closedEpisodeTtlMs: number;
  readonly subscriberDeadlineMs: number;
  private readonly clock: () => number;
  private readonly requestTick: ((at: number) => void) | undefined;

  private readonly episodeMap = new Map<string, Episode<P, Subscription<P>>>();
  /** Subscriptions to episodes that do not exist yet, by episode id. */
  private readonly waiting = new Map<string, Set<Subscription<P>>>();
  /** Earliest instant requested from the owner since the last tick. */
  private requested: number | null = null;
  private ticking = false;
  private readonly host: SubscriptionHost<P>;

  constructor(options: PartBufferOptions) {
    this.clock = options.now;
    this.maxEpisodeBytes = positive("maxEpisodeBytes", options.maxEpisodeBytes ?? MAX_EPISODE_BYTES);
    this.closedEpisodeTtlMs = nonNegative("closedEpisodeTtlMs", options.closedEpisodeTtlMs ?? CLOSED_EPISODE_TTL_MS);
    this.subscriberDeadlineMs = positive("subscriberDeadlineMs", options.subscriberDeadlineMs ?? SUBSCRIBER_DEADLINE_MS);
    this.requestTick = options.requestTick;
    this.host = {
      now: () => this.clock(),
      subscriberDeadlineMs: this.subscriberDeadlineMs,
      deadlineAt: (at) => this.want(at),
      detach: (subscription) => this.detach(subscription),
    };
  }

  /** CreateEpisode: a new, empty, open episode. Throws EpisodeExistsError if it exists (open or closed). */
  createEpisode(key: EpisodeKey): void {
    const id = episodeId(key);
    if (this.episodeMap.has(id)) throw new EpisodeExistsError(copyEpisodeKey(key));
    this.create(key, id);
  }

  /**
   * CloseEpisode: no more parts. Idempotent (a second call changes nothing, not even the close
   * instant); on a missing episode it creates the episode already closed, so a racing createEpisode
   * then fails with EpisodeExistsError and a racing addPart with EpisodeClosedError.
   */
  closeEpisode(key: EpisodeKey): void {
    const id = episodeId(key);
    const episode = this.episodeMap.get(id) ?? this.create(key, id);
    if (episode.closed) return;
    const closedAt = this.clock();
    episode.closedAt = closedAt;
    for (const subscription of [...episode.subscribers]) subscription.pump();
    if (episode.subscribers.size === 0) this.want(closedAt + this.closedEpisodeTtlMs);
  }

  /**
   * AddPart: appends a part and returns its seq. Throws EpisodeNotFoundError, EpisodeClosedError
   * or EpisodeFullError (in that order of checks). The part counts `utf8(JSON.stringify(part))`
   * bytes; the episode takes it only if its total stays within the cap (a total exactly at the cap
   * is accepted). Once a part is refused for size the episode stays full: a smaller later part
   * would otherwise leave a hole in the content that seq numbers could not reveal. Throws TypeError
   * for a part JSON cannot represent. The part is stored by reference: do not mutate it afterwards.
   */
  addPart(key: EpisodeKey, part: P): number {
    const episode = this.require(key);
    if (episode.closed) throw new EpisodeClosedError(episode.key);
    if (episode.full) throw new EpisodeFullError(episode.key, episode.bytes, null, this.maxEpisodeBytes);
    const size = serializedPartBytes(part);
    if (episode.bytes + size > this.maxEpisodeBytes) {
      episode.full = true;
      throw new EpisodeFullError(episode.key, episode.bytes, size, this.maxEpisodeBytes);
    }
    const addedAt = this.clock();
    const entry: BufferedPart<P> = Object.freeze({ seq: episode.parts.length + 1, part, addedAt });
    episode.parts.push(entry);
    episode.bytes += size;
    // Subscribers not waiting in next() are now (or still) offered a part they must take in time.
    const busy = episode.subscribers.size - episode.parked.size;
    if (episode.parked.size > 0) for (const subscription of [...episode.parked]) subscription.pump();
    if (busy > 0) this.want(addedAt + this.subscriberDeadlineMs);
    return entry.seq;
  }

  /** GetParts: a snapshot of the episode's parts (the entries are shared, the array is a copy). Throws EpisodeNotFoundError. */
  getParts(key: EpisodeKey): BufferedPart<P>[] {
    return this.require(key).parts.slice();
  }

  /**
   * StartModelInvocation: stamps now as the instant the episode opened its provider stream and
   * returns the stamp. Throws EpisodeNotFoundError or EpisodeClosedError. A second call keeps the
   * first stamp (one attempt opens one provider stream; the earliest instant bounds its runtime).
   */
  startModelInvocation(key: EpisodeKey): number {
    const episode = this.require(key);
    if (episode.closed) throw new EpisodeClosedError(episode.key);
    episode.modelInvokedAt ??= this.clock();
    return episode.modelInvokedAt;
  }

  /**
   * SubscribeToEpisode: every part from seq 1, then live parts, ending (`closedReason: "ended"`)
   * once the episode is closed and every part was handed out. A missing episode is not an error:
   * the subscription waits for it to be created. A subscription to a closed, fully delivered
   * episode has ended already.
   */
  subscribe(key: EpisodeKey): PartSubscription<P> {
    const id = episodeId(key);
    const subscription = new Subscription<P>(copyEpisodeKey(key), id, this.host);
    const episode = this.episodeMap.get(id);
    if (episode === undefined) {
      let set = this.waiting.get(id);
      if (set === undefined) {
        set = new Set();
        this.waiting.set(id, set);
      }
      set.add(subscription);
      return subscription;
    }
    subscription.attach(episode);
    const deadline = subscription.pendingDeadline();
    if (deadline !== null) this.want(deadline);
    return subscription;
  }

  /** The episode, or null. */
  episodeInfo(key: EpisodeKey): EpisodeInfo | null {
    return this.episodeMap.get(episodeId(key))?.info() ?? null;
  }

  /**
   * Runs everything due at `now`: closes subscribers whose pending part waited `subscriberDeadlineMs`
   * (first, so an episode they held can be collected in the same tick), then collects garbage.
   * Requests the next instant through `requestTick` and returns it.
   */
  tick(now: number = this.clock()): TickResult {
    this.ticking = true;
    let slowClosed = 0;
    let collected: EpisodeKey[];
    try {
      for (const episode of this.episodeMap.values()) {
        for (const subscription of [...episode.subscribers]) {
          const deadline = subscription.pendingDeadline();
          if (deadline !== null && deadline <= now) {
            subscription.finish("slow");
            slowClosed++;
          }
        }
      }
      collected = this.collectGarbage(now);
    } finally {
      this.ticking = false;
    }
    const next = this.nextDeadline();
    this.requested = next;
    if (next !== null) this.requestTick?.(next);
    return { slowClosed, collected, nextDeadline: next };
  }

  /**
   * The earliest instant at which `tick` has something to do (possibly already past), or null:
   * the deadlines of parts waiting for subscribers and the collection instants of closed episodes
   * without subscribers.
   */
  nextDeadline(): number | null {
    let next: number | null = null;
    for (const episode of this.episodeMap.values()) {
      if (episode.closedAt !== null && episode.subscribers.size === 0) {
        next = earliest(next, episode.closedAt + this.closedEpisodeTtlMs);
      }
      for (const subscription of episode.subscribers) next = earliest(next, subscription.pendingDeadline());
    }
    return next;
  }

  stats(): PartBufferStats {
    let openEpisodes = 0;
    let bytes = 0;
    let parts = 0;
    let subscriptions = 0;
    for (const episode of this.episodeMap.values()) {
      if (!episode.closed) openEpisodes++;
      bytes += episode.bytes;
      parts += episode.parts.length;
      subscriptions += episode.subscribers.size;
    }
    for (const set of this.waiting.values()) subscriptions += set.size;
    return { episodes: this.episodeMap.size, openEpisodes, bytes, parts, subscriptions };
  }

  private create(key: EpisodeKey, id: string): Episode<P, Subscription<P>> {
    const episode = new Episode<P, Subscription<P>>(copyEpisodeKey(key), id, this.clock());
    this.episodeMap.set(id, episode);
    const waiting = this.waiting.get(id);
    if (waiting !== undefined) {
      this.waiting.delete(id);
      for (const subscription of waiting) subscription.attach(episode);
    }
    return episode;
  }

  /**
   * Removes closed episodes that closed at least `closedEpisodeTtlMs` before `now` and have no
   * active subscriber. Returns their keys.
   */
  private collectGarbage(now: number): EpisodeKey[] {
    const removed: EpisodeKey[] = [];
    for (const episode of [...this.episodeMap.values()]) {
      if (episode.closedAt === null || episode.subscribers.size > 0) continue;
      if (episode.closedAt + this.closedEpisodeTtlMs > now) continue;
      this.episodeMap.delete(episode.id);
      removed.push(episode.key);
    }
    return removed;
  }

  private require(key: EpisodeKey): Episode<P, Subscription<P>> {
    const episode = this.episodeMap.get(episodeId(key));
    if (episode === undefined) throw new EpisodeNotFoundError(copyEpisodeKey(key));
    return episode;
  }

  private detach(subscription: Subscription<P>): void {
    const episode = subscription.episode;
    if (episode === null) {
      const set = this.waiting.get(subscription.id);
      set?.delete(subscription);
      if (set?.size === 0) this.waiting.delete(subscription.id);
      return;
    }
    episode.subscribers.delete(subscription);
    episode.parked.delete(subscription);
    if (episode.closedAt !== null && episode.subscribers.size === 0 && this.episodeMap.get(episode.id) === episode) {
      this.want(episode.closedAt + this.closedEpisodeTtlMs);
    }
  }

  private want(at: number): void {
    if (this.ticking) return;
    if (this.requested !== null && this.requested <= at) return;
    this.requested = at;
    this.requestTick?.(at);
  }
}

function earliest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`PartBuffer: ${name} must be a positive number, got ${value}`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`PartBuffer: ${name} must be a non-negative number, got ${value}`);
  return value;
}
