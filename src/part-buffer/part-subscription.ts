/**
 * A subscription to one episode of the Message part buffer (the spec's SubscribeToEpisode channel),
 * as an async iterator.
 *
 * It keeps a cursor into the episode's shared part array, never a copy: its "queue" is the suffix
 * of that array it has not taken yet, bounded by the episode's byte cap, and a thousand subscribers
 * cost a thousand cursors. `next()` hands out the part at the cursor at once when there is one and
 * otherwise parks a promise that the next add (or the close) resolves; nothing polls.
 *
 * Accepting a part means calling `next()`. The spec's "must accept parts within 10 seconds of them
 * being sent" is measured per part as in a Go unbuffered channel: the part at the cursor is offered
 * from the later of (it was added, the subscriber took the previous part or subscribed), and a
 * subscriber that leaves it untaken for the deadline is closed by the buffer's `tick` with
 * `closedReason: "slow"`. A subscriber waiting in `next()` is never late.
 */
import type { BufferedPart, Episode, EpisodeKey } from "./episode";

/**
 * Why a subscription ended:
 * - `ended`: the episode is closed and every part was handed out (the spec's normal channel close);
 * - `unsubscribed`: the subscriber called `close()` or `return()` (e.g. `break` out of `for await`);
 * - `slow`: a part stayed untaken past the subscriber deadline.
 */
export type SubscriptionCloseReason = "ended" | "unsubscribed" | "slow";

export type PartIteratorResult<P> = IteratorResult<BufferedPart<P>, SubscriptionCloseReason>;

export interface PartSubscription<P> extends AsyncIterator<BufferedPart<P>, SubscriptionCloseReason, undefined> {
  readonly key: EpisodeKey;
  /** null while open; the iterator's `done` result carries the same value. */
  readonly closedReason: SubscriptionCloseReason | null;
  /** Parts handed out so far, which is also the seq of the last one. */
  readonly delivered: number;
  /** Resolves (never rejects) when the subscription ends, whether or not anyone is reading. */
  readonly done: Promise<SubscriptionCloseReason>;
  /** Resolves with the next part; `{ done: true, value: reason }` once the subscription has ended. */
  next(): Promise<PartIteratorResult<P>>;
  /**
   * Takes up to `limit` parts that are ready now, without waiting (none while a `next()` is
   * parked). A relay that has just awaited one part drains the rest of a burst in one go.
   */
  takeReady(limit: number): BufferedPart<P>[];
  /** Unsubscribes (reason `unsubscribed` unless it had already ended). */
  return(): Promise<PartIteratorResult<P>>;
  /** Unsubscribes (reason `unsubscribed` unless it had already ended). Idempotent. */
  close(): void;
  [Symbol.asyncIterator](): PartSubscription<P>;
}

/** What a subscription needs from its buffer. @internal */
export interface SubscriptionHost<P> {
  now(): number;
  readonly subscriberDeadlineMs: number;
  /** A part became pending for a subscriber that is not waiting in next(): due at `at`. */
  deadlineAt(at: number): void;
  /** The subscription ended: forget it (episode or waiting list). Called before `episode` is cleared. */
  detach(subscription: Subscription<P>): void;
}

type Waiter<P> = (result: PartIteratorResult<P>) => void;

/** @internal The buffer creates these; everyone else sees `PartSubscription`. */
export class Subscription<P> implements PartSubscription<P> {
  /** null until the episode exists (the spec: subscribing to a missing episode waits for it), and after the end. */
  episode: Episode<P, Subscription<P>> | null = null;
  private cursor = 0;
  /** When the subscriber last became ready for a new part: subscribed, or took the previous one. */
  private readyAt: number;
  private waiters: Waiter<P>[] = [];
  private reason: SubscriptionCloseReason | null = null;
  readonly done: Promise<SubscriptionCloseReason>;
  private resolveDone!: (reason: SubscriptionCloseReason) => void;

  constructor(
    readonly key: EpisodeKey,
    readonly id: string,
    private readonly host: SubscriptionHost<P>,
  ) {
    this.readyAt = host.now();
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  get closedReason(): SubscriptionCloseReason | null {
    return this.reason;
  }

  get delivered(): number {
    return this.cursor;
  }

  [Symbol.asyncIterator](): PartSubscription<P> {
    return this;
  }

  next(): Promise<PartIteratorResult<P>> {
    if (this.reason !== null) return Promise.resolve({ done: true, value: this.reason });
    if (this.waiters.length === 0) {
      const result = this.take();
      if (result !== null) {
        this.afterDelivery();
        return Promise.resolve(result);
      }
    }
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.syncParked();
    });
  }

  takeReady(limit: number): BufferedPart<P>[] {
    const taken: BufferedPart<P>[] = [];
    if (this.reason !== null || this.waiters.length > 0) return taken;
    while (taken.length < limit) {
      const result = this.take();
      if (result === null || result.done) break;
      taken.push(result.value);
    }
    if (taken.length > 0) this.afterDelivery();
    return taken;
  }

  return(): Promise<PartIteratorResult<P>> {
    this.close();
    return Promise.resolve({ done: true, value: this.reason ?? "unsubscribed" });
  }

  close(): void {
    this.finish("unsubscribed");
  }

  /** The deadline of the part waiting for this subscriber, or null when none is waiting. @internal */
  pendingDeadline(): number | null {
    if (this.reason !== null || this.waiters.length > 0 || this.episode === null) return null;
    const entry = this.episode.parts[this.cursor];
    if (entry === undefined) return null;
    return Math.max(this.readyAt, entry.addedAt) + this.host.subscriberDeadlineMs;
  }

  /** Attaches to the episode once it exists. @internal */
  attach(episode: Episode<P, Subscription<P>>): void {
    this.episode = episode;
    episode.subscribers.add(this);
    this.pump();
  }

  /**
   * Serves parked next() calls from the episode and ends the subscription once a closed episode has
   * been handed out entirely. The buffer calls it after an add, a close and an attach. @internal
   */
  pump(): void {
    while (this.reason === null && this.waiters.length > 0) {
      const result = this.take();
      if (result === null) break;
      this.waiters.shift()!(result);
      this.afterDelivery();
    }
    const episode = this.episode;
    if (this.reason === null && episode !== null && episode.closed && this.cursor >= episode.parts.length) {
      this.finish("ended");
      return;
    }
    this.syncParked();
  }

  /** Ends the subscription (first reason wins) and releases its hold on the episode. @internal */
  finish(reason: SubscriptionCloseReason): void {
    if (this.reason !== null) return;
    this.reason = reason;
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter({ done: true, value: reason });
    this.episode?.parked.delete(this);
    this.host.detach(this);
    this.episode = null;
    this.resolveDone(reason);
  }

  private take(): PartIteratorResult<P> | null {
    const entry = this.episode?.parts[this.cursor];
    if (entry === undefined) return null;
    this.cursor++;
    this.readyAt = this.host.now();
    return { done: false, value: entry };
  }

  /** After handing out a part: end if that was the last part of a closed episode, else arm the next part's deadline. */
  private afterDelivery(): void {
    const episode = this.episode;
    if (episode === null) return;
    if (this.cursor >= episode.parts.length) {
      if (episode.closed) this.finish("ended");
    } else if (this.waiters.length === 0) {
      this.host.deadlineAt(this.readyAt + this.host.subscriberDeadlineMs);
    }
  }

  private syncParked(): void {
    const episode = this.episode;
    if (episode === null) return;
    if (this.reason === null && this.waiters.length > 0) episode.parked.add(this);
    else episode.parked.delete(this);
  }
}
