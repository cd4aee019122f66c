/**
 * Spec "Sync poller": while any stream socket is open, the object reads its chat's versions every
 * CHAT_STREAM_SYNC_POLL_MS (every CHAT_STREAM_IDLE_POLL_MS while the chat is idle:
 * object-cadence.ts) and delivers them to every loop as hints, which heals a notification that was
 * lost. A timer source of the object's one alarm (durable-objects/chat-object/alarm-clock.ts): it
 * reports its deadline and runs when the alarm finds it due.
 */
import { errorText, logger } from "../../src/log/log";
import type { SyncHints } from "../../src/stream/sync-state";
import type { ObjectCadence } from "./object-cadence";

export interface SyncPollerDeps {
  /** The object's stream sockets (durable-objects/chat-object/stream-sockets.ts). */
  streams: { readonly count: number; hint(hints: SyncHints): void; resync(): void; chatIdFromSockets(): string | undefined };
  /** The chat the object serves, once a call or a restored socket named it. */
  chatId(): string | undefined;
  /** The chat's versions; undefined when its row is gone. */
  readHints(chatId: string): Promise<SyncHints | undefined>;
  pollMs(): number;
  now(): number;
  cadence: ObjectCadence;
}

export class SyncPoller {
  /** When the last poll ran while streams were open (null: none yet, so one is due at once, e.g. after a restart). */
  #polledAt: number | null = null;
  /** The versions the last poll read: one that reads others means the chat moved unseen (activity). */
  #lastRead: string | undefined;

  constructor(private readonly deps: SyncPollerDeps) {}

  /** The poll's deadline while any stream is open (the alarm clock's source). */
  dueAt(): number | null {
    if (this.deps.streams.count === 0) {
      this.#polledAt = null;
      return null;
    }
    // None yet in this instance: overdue (0, not now, so an alarm at or after any instant finds it due).
    if (this.#polledAt === null) return 0;
    const now = this.deps.now();
    return this.#polledAt + this.deps.cadence.intervalMs(this.deps.pollMs(), now);
  }

  isDue(now: number): boolean {
    const at = this.dueAt();
    return at !== null && at <= now;
  }

  /** A stream socket opened (its bootstrap reads everything): the first poll comes one interval later, unless one is already due. */
  streamOpened(): void {
    this.#polledAt ??= this.deps.now();
  }

  /** The alarm fired at `now`: the poll, when it is due or `anyway` (an idle chat's reads run together). */
  pollIfDue(now: number, anyway = false): Promise<void> | undefined {
    const pollAt = this.dueAt();
    if (pollAt === null || (pollAt > now && !anyway)) return undefined;
    this.#polledAt = now;
    return this.#poll();
  }

  async #poll(): Promise<void> {
    // A fresh instance with hibernated sockets learns its chat from their attachments.
    const chatId = this.deps.chatId() ?? this.deps.streams.chatIdFromSockets();
    if (!chatId) {
      // No attachment names it: hinting restores their loops, each catching up by itself.
      this.deps.streams.hint({});
      return;
    }
    try {
      const hints = await this.deps.readHints(chatId);
      const read = JSON.stringify(hints ?? null);
      if (this.#lastRead !== undefined && read !== this.#lastRead) this.deps.cadence.touched();
      this.#lastRead = read;
      // No row: the chat was deleted. Versions cannot say so; a forced Sync reads nothing and
      // closes each stream with 4404.
      if (hints) this.deps.streams.hint(hints);
      else this.deps.streams.resync();
    } catch (err) {
      logger.warn("stream_poll_failed", { chat_id: chatId, error: errorText(err) });
    }
  }
}
