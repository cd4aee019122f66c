/**
 * Named gates for `/gate <name> <ms> <text>`: such a stream sends its first token, then waits
 * until `POST /_gates/<name>` opens the gate, then sends the rest. A test holds many streams at
 * the same point (every chat owned and mid-answer) for as long as it needs, however loaded the
 * machine is, and releases them together. An opened gate stays open.
 */
export class Gates {
  readonly #open = new Set<string>();
  readonly #waiting = new Map<string, Set<() => void>>();

  open(name: string): void {
    this.#open.add(name);
    for (const release of this.#waiting.get(name) ?? []) release();
    this.#waiting.delete(name);
  }

  /** Resolves once the gate is open, or at once when `signal` aborts (the client went away). */
  wait(name: string, signal: AbortSignal): Promise<void> {
    if (this.#open.has(name) || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = this.#waiting.get(name) ?? new Set<() => void>();
      this.#waiting.set(name, waiters);
      const release = () => {
        waiters.delete(release);
        signal.removeEventListener("abort", release);
        resolve();
      };
      waiters.add(release);
      signal.addEventListener("abort", release, { once: true });
    });
  }
}
