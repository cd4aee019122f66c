/**
 * The hook dispatch cap (spec "Lifecycle hooks": "Concurrent dispatches are capped ... Admission can
 * hold only part of the cap"). A counting semaphore with two classes of holder:
 * - `admission`: a dispatch that admits new work into a chat (a submitted prompt, a new session);
 *   at most `admissionCap` of these hold slots at once;
 * - `admitted`: a dispatch that belongs to work a chat already admitted (tool use, compaction,
 *   stop); it may use every slot.
 * So a burst of submissions leaves `cap - admissionCap` slots that only running turns can take.
 * Waiters are served in arrival order among those that fit; a waiter that is not served within
 * its deadline gets a CapacityTimeoutError (the dispatcher fails closed on it).
 */

export type DispatchClass = "admission" | "admitted";

export class CapacityTimeoutError extends Error {
  override name = "CapacityTimeoutError";
}

interface Waiter {
  kind: DispatchClass;
  grant: () => void;
}

export class DispatchLimiter {
  #inUse = 0;
  #admissionInUse = 0;
  readonly #waiters: Waiter[] = [];

  /** `admissionShare` in (0, 1]: the part of `cap` admission dispatches may hold (at least one slot). */
  constructor(
    readonly cap: number,
    admissionShare: number,
  ) {
    if (!(cap >= 1)) throw new RangeError("the dispatch cap must be at least 1");
    this.admissionCap = Math.max(1, Math.floor(cap * admissionShare));
  }

  readonly admissionCap: number;

  get inUse(): number {
    return this.#inUse;
  }

  get admissionInUse(): number {
    return this.#admissionInUse;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  /** Resolves with a release function once a slot of `kind` is free; rejects after `timeoutMs`. */
  acquire(kind: DispatchClass, timeoutMs: number): Promise<() => void> {
    // Every release serves the waiters that fit, so a waiter still queued does not fit: a dispatch
    // that fits now jumps no one of its own class.
    if (this.#fits(kind)) return Promise.resolve(this.#take(kind));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        kind,
        grant: () => {
          clearTimeout(timer);
          resolve(this.#take(kind));
        },
      };
      const timer = setTimeout(() => {
        const at = this.#waiters.indexOf(waiter);
        if (at >= 0) this.#waiters.splice(at, 1);
        reject(new CapacityTimeoutError(`no hook dispatch slot (${kind}) became free within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  #fits(kind: DispatchClass): boolean {
    if (this.#inUse >= this.cap) return false;
    return kind === "admitted" || this.#admissionInUse < this.admissionCap;
  }

  #take(kind: DispatchClass): () => void {
    this.#inUse++;
    if (kind === "admission") this.#admissionInUse++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inUse--;
      if (kind === "admission") this.#admissionInUse--;
      this.#serve();
    };
  }

  /** Grants waiting dispatches in order, skipping admission waiters while admission is full. */
  #serve(): void {
    for (let i = 0; i < this.#waiters.length && this.#inUse < this.cap; ) {
      const waiter = this.#waiters[i] as Waiter;
      if (!this.#fits(waiter.kind)) {
        i++;
        continue;
      }
      this.#waiters.splice(i, 1);
      waiter.grant();
    }
  }
}
