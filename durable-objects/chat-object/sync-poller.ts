/**
 * Spec "Sync poller": while any stream socket is open, the object reads its chat's versions every
 * CHAT_STREAM_SYNC_POLL_MS and delivers them to every loop as hints, which heals a notification
 * that was lost. A timer source of the object's one alarm (durable-objects/chat-object/alarm-clock.ts): it
 * reports its deadline and runs when the alarm finds it due.
 */
import { errorText, logger } from "../../src/log/log";
import type { SyncHints } from "../../src/stream/sync-state";

export interface SyncPollerDeps {
  /** The object's stream sockets (durable-objects/chat-object/stream-sockets.ts). */
  streams: { readonly count: number; hint(hints: SyncHints): void; resync(): void };
  /** The chat the object serves, once a call or a restored socket named it. */
  chatId(): string | undefined;
  /** The chat's versions; undefined when its row is gone. */
  readHints(chatId: string): Promise<SyncHints | undefined>;
  pollMs(): number;
  now(): number;
}

export class SyncPoller {
  /** When the next poll is due while streams are open (null: at once, e.g. after a restart). */
  #pollAt: number | null = null;

  constructor(private readonly deps: SyncPollerDeps) {}

  /** The poll's deadline while any stream is open (the alarm clock's source). */
  dueAt(): number | null {
    if (this.deps.streams.count === 0) {
      this.#pollAt = null;
      return null;
    }
    return this.#pollAt ?? this.deps.now();
  }

  /** A stream socket opened: the first poll comes one interval later, unless one is already due. */
  streamOpened(): void {
    this.#pollAt ??= this.deps.now() + this.deps.pollMs();
  }

  /** The alarm fired at `now`: the poll, when it is due, with the next one an interval later. */
  pollIfDue(now: number): Promise<void> | undefined {
    const pollAt = this.dueAt();
    if (pollAt === null || pollAt > now) return undefined;
    this.#pollAt = now + this.deps.pollMs();
    return this.#poll();
  }

  async #poll(): Promise<void> {
    const chatId = this.deps.chatId();
    if (!chatId) {
      // A fresh instance with hibernated sockets: hinting restores their loops (and their chat id).
      this.deps.streams.hint({});
      return;
    }
    try {
      const hints = await this.deps.readHints(chatId);
      // No row: the chat was deleted. Versions cannot say so; a forced Sync reads nothing and
      // closes each stream with 4404.
      if (hints) this.deps.streams.hint(hints);
      else this.deps.streams.resync();
    } catch (err) {
      logger.warn("stream_poll_failed", { chat_id: chatId, error: errorText(err) });
    }
  }
}
