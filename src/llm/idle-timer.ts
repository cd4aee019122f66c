/** Aborts its signal when reset() has not been called for `ms`; inert (no signal) without `ms`. */
export class IdleTimer {
  readonly #controller = new AbortController();
  readonly #ms: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(ms: number | undefined) {
    this.#ms = ms;
    this.reset();
  }

  get signal(): AbortSignal | undefined {
    return this.#ms === undefined ? undefined : this.#controller.signal;
  }

  get fired(): boolean {
    return this.#controller.signal.aborted;
  }

  reset(): void {
    if (this.#ms === undefined) return;
    this.stop();
    this.#timer = setTimeout(
      () => this.#controller.abort(new DOMException(`nothing received for ${this.#ms} ms`, "TimeoutError")),
      this.#ms,
    );
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
  }
}
