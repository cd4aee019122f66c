/**
 * One user's chat list watch, without the sockets (durable-objects/chat-watch/ holds those): what
 * each watcher was last sent about each chat, notifications turned into events, and the catch-up
 * poll that heals a lost notification (docs/stream.md "The chat list watch").
 *
 * A notification only names a chat; the feed reads the chat as GET /chats would list it (the
 * owner's, in an organization they belong to) and sends what changed since the last event about
 * it. Reads queued behind one in flight merge into one. The poll reads the chats whose row or
 * metadata moved since its cursor, and whether the chats already sent still exist, and sends the
 * same way: a change seen twice (a notification and the poll) is sent once.
 */
import { errorText, logger } from "../log/log";
import type { ChatWire } from "../wire/chat-wire";
import type { PendingToolCall } from "../wire/stream-events";
import { type ChatWatchEvent, listedKey, watchEventKinds } from "./watch-events";

/** Chats the feed remembers (the newest sent); one it forgot is sent again whole at its next change, which is harmless. */
export const WATCH_REMEMBERED_CHATS = 2_000;
/**
 * How far back each poll reads before its previous read began. A transaction's timestamps are
 * taken when it begins, so a change committed just after a read can carry a time just before it;
 * re-reading this window finds it, and what was already sent is not sent again.
 */
export const WATCH_POLL_OVERLAP_MS = 60_000;
/** The most chats one poll reads; the rest wait for the next (its cursor stops at the last read). */
export const WATCH_POLL_BATCH = 200;

export interface ChangedChats {
  chats: ChatWire[];
  /** The database's time when the read began. */
  readAt: Date;
  /** When the newest chat read changed (its cursor when the batch was full). */
  lastChangedAt: Date | null;
}

export interface WatchFeedDeps {
  /** The chats among `ids` the user can list. */
  read(ids: readonly string[]): Promise<ChatWire[]>;
  /** The user's listable chats whose row, title or summary changed after `since`, oldest change first, at most `limit`. */
  readChanged(since: Date, limit: number): Promise<ChangedChats>;
  /** The client tool calls a chat in requires_action waits on (read only for an `action_required` event). */
  pendingToolCalls(chatId: string): Promise<PendingToolCall[]>;
  /** Which of `ids` the user can still list. */
  present(ids: readonly string[]): Promise<Set<string>>;
  /** One event to every open watch socket. */
  send(event: ChatWatchEvent): void;
  /** When the oldest open watch socket opened (ms since the epoch). */
  watchingSince(): number;
  now(): number;
}

export class WatchFeed {
  /** What was last sent about each chat, oldest first (a Map keeps insertion order: re-set moves it last). */
  readonly #sent = new Map<string, ChatWire>();
  readonly #pending = new Set<string>();
  #reading: Promise<void> | null = null;
  #cursor: Date | null = null;

  constructor(private readonly deps: WatchFeedDeps) {}

  /** A chat of the user changed (a notification): read it and send what changed. */
  changed(chatId: string): Promise<void> {
    this.#pending.add(chatId);
    this.#reading ??= this.#drain().finally(() => {
      this.#reading = null;
    });
    return this.#reading;
  }

  /** The catch-up poll: changes no notification brought, and chats deleted meanwhile. */
  async poll(): Promise<void> {
    const since = this.#cursor ?? new Date(Math.max(this.deps.watchingSince(), this.deps.now() - 3_600_000) - WATCH_POLL_OVERLAP_MS);
    const changed = await this.deps.readChanged(since, WATCH_POLL_BATCH);
    this.#cursor =
      changed.chats.length >= WATCH_POLL_BATCH && changed.lastChangedAt !== null
        ? changed.lastChangedAt
        : new Date(changed.readAt.getTime() - WATCH_POLL_OVERLAP_MS);
    for (const chat of changed.chats) await this.#apply(chat);
    const known = [...this.#sent.keys()];
    if (known.length === 0) return;
    const present = await this.deps.present(known);
    for (const id of known) if (!present.has(id)) this.#gone(id);
  }

  /** No socket is open: nothing is remembered until the next one opens (it starts from a fresh list). */
  reset(): void {
    this.#sent.clear();
    this.#pending.clear();
    this.#cursor = null;
  }

  async #drain(): Promise<void> {
    while (this.#pending.size > 0) {
      const ids = [...this.#pending];
      this.#pending.clear();
      let chats: ChatWire[];
      try {
        chats = await this.deps.read(ids);
      } catch (err) {
        // The poll brings it within one interval.
        logger.warn("watch_read_failed", { chats: ids.length, error: errorText(err) });
        return;
      }
      const found = new Set(chats.map((c) => c.id));
      for (const chat of chats) await this.#apply(chat);
      for (const id of ids) if (!found.has(id)) this.#gone(id);
    }
  }

  async #apply(chat: ChatWire): Promise<void> {
    const before = this.#sent.get(chat.id);
    const kinds = watchEventKinds(before, chat, this.deps.watchingSince());
    if (before !== undefined && kinds.length === 0 && listedKey(before) === listedKey(chat)) return;
    let toolCalls: PendingToolCall[] = [];
    if (kinds.includes("action_required")) {
      try {
        toolCalls = await this.deps.pendingToolCalls(chat.id);
      } catch (err) {
        // Not remembered, so the poll (which re-reads recent changes) sends it again whole.
        logger.warn("watch_pending_calls_read_failed", { chat_id: chat.id, error: errorText(err) });
        return;
      }
      // The poll and a notification's read may both have got here: only the first sends.
      if (this.#sent.get(chat.id) !== before) return this.#apply(chat);
    }
    this.#remember(chat);
    for (const kind of kinds) this.deps.send(kind === "action_required" ? { kind, chat, tool_calls: toolCalls } : { kind, chat });
  }

  /** A chat the watcher was sent is gone (deleted, or its owner left its organization). */
  #gone(id: string): void {
    const last = this.#sent.get(id);
    if (last === undefined) return;
    this.#sent.delete(id);
    this.deps.send({ kind: "deleted", chat: last, gone: true });
  }

  #remember(chat: ChatWire): void {
    this.#sent.delete(chat.id);
    this.#sent.set(chat.id, chat);
    if (this.#sent.size > WATCH_REMEMBERED_CHATS) {
      const oldest = this.#sent.keys().next().value;
      if (oldest !== undefined) this.#sent.delete(oldest);
    }
  }
}
