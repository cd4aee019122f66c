/**
 * Aborts its signal when reset() has not been called for `ms`; inert (no signal) without `ms`.
 *
 * reset() runs once per streamed part, so it only notes the time: one timer is armed at a time, and
 * when it fires early (parts came meanwhile) it is armed again for what is left of the window.
 * Clearing and setting a timer per part cost a timer object and a closure per token.
 */
export class IdleTimer {
  readonly #controller = new AbortController();
  readonly #ms: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastReset = 0;
  #stopped = false;

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
    if (this.#ms === undefined || this.#stopped) return;
    this.#lastReset = Date.now();
    if (this.#timer === undefined) this.#arm(this.#ms);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(delay: number): void {
    this.#timer = setTimeout(() => this.#check(), delay);
  }

  #check(): void {
    this.#timer = undefined;
    const ms = this.#ms;
    if (ms === undefined || this.#stopped) return;
    const left = this.#lastReset + ms - Date.now();
    if (left > 0) this.#arm(left);
    else this.#controller.abort(new DOMException(`nothing received for ${ms} ms`, "TimeoutError"));
  }
}
