/**
 * The parent's side of a wait: wait_agent registers a watch on its children, reads their state,
 * and sleeps until a child's object reports a transition (an RPC into the parent's object) or its
 * timeout passes. Nothing loops while it sleeps; the timeout rides on the object's alarm. Reports
 * are hints only: the waiter re-reads the database after each, so a lost report costs at most the
 * timeout and a duplicate costs one read.
 */
import type { ChildWatch } from "./host";

export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export class ChildWaiters {
  readonly #listeners = new Map<string, Set<() => void>>();

  constructor(private readonly sleep: Sleep) {}

  /** A child's object says the child moved (any transition worth a re-read). */
  report(childId: string): void {
    for (const listener of [...(this.#listeners.get(childId) ?? [])]) listener();
  }

  /** How many waits are registered (tests, logs). */
  get size(): number {
    let n = 0;
    for (const set of this.#listeners.values()) n += set.size;
    return n;
  }

  watch(childIds: readonly string[]): ChildWatch {
    let pending = false;
    let wakeUp: (() => void) | null = null;
    const listener = () => {
      pending = true;
      wakeUp?.();
    };
    for (const id of childIds) {
      let set = this.#listeners.get(id);
      if (!set) {
        set = new Set();
        this.#listeners.set(id, set);
      }
      set.add(listener);
    }
    const close = () => {
      for (const id of childIds) {
        const set = this.#listeners.get(id);
        set?.delete(listener);
        if (set?.size === 0) this.#listeners.delete(id);
      }
    };
    const next = async (ms: number, signal: AbortSignal): Promise<"reported" | "timeout"> => {
      if (signal.aborted) throw signal.reason;
      if (pending) {
        pending = false;
        return "reported";
      }
      const stop = new AbortController();
      const onAbort = () => stop.abort(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      const reported = new Promise<"reported">((resolve) => {
        wakeUp = () => resolve("reported");
      });
      const slept = this.sleep(ms, stop.signal).then(
        () => "timeout" as const,
        () => "aborted" as const,
      );
      try {
        const result = await Promise.race([reported, slept]);
        if (signal.aborted) throw signal.reason;
        pending = false;
        return result === "aborted" ? "timeout" : result;
      } finally {
        wakeUp = null;
        signal.removeEventListener("abort", onAbort);
        stop.abort();
      }
    };
    return { next, close };
  }
}
