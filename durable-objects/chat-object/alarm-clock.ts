/**
 * AlarmClock: the object's one alarm, shared by every timer the object runs (a Durable Object has
 * a single alarm). Sources report their next deadline (the worker's heartbeat tick, the part
 * buffer's collection, the stream's sync poll); tasks sleep on it (retry backoff, the
 * requires-action deadline). The clock keeps the alarm at the earliest of them.
 *
 * The armed instant is tracked in memory, not read back from storage: the object is the only
 * writer of its alarm, and an alarm left by an evicted instance only fires early, which is
 * harmless (the handler re-arms for what is really due).
 */

import { errorText, logger } from "../../src/log/log";

/** A timer source: its next deadline in epoch ms, or null when it needs none. */
export type DeadlineSource = () => number | null;

interface Sleeper {
  at: number;
  wake(): void;
}

export interface AlarmClockOptions {
  now(): number;
  /** Sets the platform alarm (DurableObjectStorage.setAlarm); its failure is the caller's to log. */
  setAlarm(at: number): void;
  /** Sources known at construction; `watch` adds the rest. */
  sources?: readonly DeadlineSource[];
}

export class AlarmClock {
  readonly #sleepers = new Set<Sleeper>();
  readonly #sources: DeadlineSource[];
  #armedAt: number | null = null;

  constructor(private readonly options: AlarmClockOptions) {
    this.#sources = [...(options.sources ?? [])];
  }

  /** Counts a source's deadlines from now on (an object's parts that are built after the clock). */
  watch(...sources: DeadlineSource[]): void {
    this.#sources.push(...sources);
  }

  /** Resolves once the alarm has fired at or after `ms` from now; rejects with the signal's reason on abort. */
  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const sleeper: Sleeper = {
        at: this.options.now() + Math.max(0, ms),
        wake: () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.#sleepers.delete(sleeper);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#sleepers.add(sleeper);
      this.arm();
    });
  }

  /** The earliest deadline of every source and sleeper, or null when nothing waits. */
  next(): number | null {
    let next: number | null = null;
    for (const source of this.#sources) {
      const at = source();
      if (at !== null && (next === null || at < next)) next = at;
    }
    for (const s of this.#sleepers) if (next === null || s.at < next) next = s.at;
    return next;
  }

  /**
   * A deadline may have moved earlier: arm the alarm for the earliest one unless it already is.
   * Never for a past or present instant: an alarm set from inside the alarm handler for a time
   * not after now is dropped by local workerd when the handler returns (production fires it late;
   * workerd issue 6866), and the clock, believing itself armed, would never set one again: no
   * heartbeat, no sync poll, a chat owned by a runner that never ticks. One millisecond ahead is
   * the same deadline, and always a new alarm.
   */
  arm(): void {
    const next = this.next();
    if (next === null) return;
    const at = Math.max(next, this.options.now() + 1);
    if (this.#armedAt !== null && this.#armedAt <= at) return;
    this.#armedAt = at;
    this.options.setAlarm(at);
  }

  /**
   * The alarm fired: it is no longer armed, and every sleeper that is due wakes. The handler then
   * runs the sources' work and calls `arm()` for what remains.
   */
  fired(now: number): void {
    this.#armedAt = null;
    for (const s of this.#sleepers) {
      if (s.at > now) continue;
      this.#sleepers.delete(s);
      s.wake();
    }
  }

  /** Sleepers still waiting (for tests and memory accounting). */
  get sleeping(): number {
    return this.#sleepers.size;
  }
}

/** The Durable Object's alarm as AlarmClock sets it: kept alive past the call, a failure logged. */
export function storageAlarm(state: {
  waitUntil(work: Promise<unknown>): void;
  storage: { setAlarm(at: number): Promise<void> };
}): (at: number) => void {
  return (at) =>
    state.waitUntil(state.storage.setAlarm(at).catch((err: unknown) => logger.error("alarm_set_failed", { error: errorText(err) })));
}
