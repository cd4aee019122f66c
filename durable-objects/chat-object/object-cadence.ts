/**
 * Idle chats sleep (docs/stream.md, "Idle chats sleep"): whether the object's chat is active or
 * idle, which sets how often its periodic reads (the sync poll, the sockets' credential check)
 * wake it. A chat is active while its worker holds it and for CHAT_STREAM_IDLE_POLL_MS after the
 * last sign of life: a command, a notification, a socket opened, a poll that found the chat moved.
 * Then it is idle: both reads run together once per idle interval, on one connection that closes
 * as soon as they are done, so between them the object holds nothing open and can hibernate.
 *
 * An instance starts idle: a fresh instance woken by its alarm after hibernating is not activity.
 */

export interface ObjectCadenceDeps {
  now(): number;
  /** The worker holds the chat (its heartbeat is scheduled): never idle then. */
  busy(): boolean;
  /** CHAT_STREAM_IDLE_POLL_MS: the quiet that makes a chat idle, and its reads' interval then; 0: never idle. */
  idleMs(): number;
  /** The object went from idle to active (its reads' deadlines moved earlier; its connections may linger again). */
  woke(): void;
}

export class ObjectCadence {
  /** The last sign of life; null: none in this instance. */
  #activeAt: number | null = null;

  constructor(private readonly deps: ObjectCadenceDeps) {}

  /** A sign of life. */
  touched(): void {
    const now = this.deps.now();
    const wasIdle = this.idle(now);
    this.#activeAt = now;
    if (wasIdle) this.deps.woke();
  }

  idle(now: number): boolean {
    const idleMs = this.deps.idleMs();
    if (idleMs === 0 || this.deps.busy()) return false;
    return this.#activeAt === null || now - this.#activeAt >= idleMs;
  }

  /** A periodic read's interval: its own while active, the idle interval (never shorter) while idle. */
  intervalMs(activeMs: number, now: number): number {
    return this.idle(now) ? Math.max(activeMs, this.deps.idleMs()) : activeMs;
  }
}
