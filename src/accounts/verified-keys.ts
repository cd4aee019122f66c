/**
 * Authentication where a warm connection already lives (a chat's object): the keys it has read are
 * kept in memory for at most `ttlMs`, so a chat's hot path (send, edit, interrupt, its reads and
 * sockets) authenticates without a database round trip.
 *
 * The bound: a key deleted, a user suspended or removed from the chat's organization stops
 * authenticating (the last as a missing chat) within `ttlMs` of the change
 * (the next read of the key after its entry ages out sees it); expiry is checked against the
 * cached expiry on every call, so an expired key fails at once. The secret is verified against the
 * stored hash on every call; an unknown key id is never cached (no one fills memory with guesses).
 * `last_used_at` is recorded at most once a minute per key, as the Worker does, in the background
 * after the request's own work is done (`afterRequest`), when the pool has a connection free.
 * Started at once, the write held the pool's warm connection while the request's first statement
 * opened another (startup, password); started as the request ends, it met the client's next
 * request (a new chat's socket); a second later, the turn that request started.
 */
import type { Database } from "../db/database";
import {
  type ApiKeyForAuth,
  FULL_SCOPE,
  findApiKeyForAuth,
  renewedExpiry,
  type SessionLifetime,
  touchApiKey,
  usageIsStale,
} from "./api-keys";
import { assertScope, type Caller, callerOf, presentedKey } from "./authentication";
import { ChatNotFoundError } from "../chatstate/errors";

/** Entries kept at most; past it the oldest read goes first (a chat's object sees few keys). */
const MAX_ENTRIES = 256;
/** Between looks for a free connection for a last_used_at write, and how many looks before writing anyway. */
const USAGE_WRITE_DELAY_MS = 1_000;
const USAGE_WRITE_LOOKS = 5;

export interface VerifiedKeysDeps {
  db: Database;
  /** How long a read key is trusted; 0 reads it on every call. */
  ttlMs: number;
  now(): Date;
  /** Work that outlives the request (the last_used_at write). */
  background(work: Promise<unknown>): void;
  /** Whether `db`'s pool has a connection free now (the last_used_at write waits a little for one). */
  connectionFree(): boolean;
  /** Between looks for a free connection (USAGE_WRITE_DELAY_MS; tests shorten it). */
  usageLookMs?: number;
  /** How a session's use renews it (api-keys.ts touchApiKey). */
  sessions: SessionLifetime;
}

interface Entry {
  found: ApiKeyForAuth;
  readAt: number;
}

export class VerifiedKeys {
  readonly #entries = new Map<string, Entry>();
  /** Uses callerFor saw whose last_used_at is not written yet: key id → when. */
  readonly #unrecorded = new Map<string, Date>();

  constructor(private readonly deps: VerifiedKeysDeps) {}

  /**
   * The caller `token` authenticates as, or AuthenticationError. With `chatId`, a caller outside
   * that chat's organization is refused as for a missing chat (ChatNotFoundError).
   */
  async callerFor(token: string | undefined, chatId?: string): Promise<Caller> {
    const { id, secret } = presentedKey(token);
    const now = this.deps.now();
    const found = await this.#read(id, now.getTime(), chatId);
    const caller = await callerOf(found, secret, now);
    // Every chat route needs the full scope (docs/accounts.md "Scopes").
    assertScope(caller, [FULL_SCOPE]);
    // Removed from the chat's organization: the chat answers as a missing one (docs/accounts.md).
    if (chatId !== undefined && found?.inChatOrganization === false) throw new ChatNotFoundError(chatId);
    if (found && usageIsStale(found.key, now)) {
      // Recorded in memory first, so concurrent requests write it once; a session's renewal too,
      // as the write will make it.
      found.key.lastUsedAt = now;
      found.key.expiresAt = renewedExpiry(found.key, now, this.deps.sessions);
      this.#unrecorded.set(id, now);
    }
    return caller;
  }

  /** `work`, a request that authenticated with callerFor; the uses it saw are written in the background after it settles. */
  async afterRequest<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } finally {
      for (const [id, at] of this.#unrecorded) this.deps.background(this.#recordUse(id, at));
      this.#unrecorded.clear();
    }
  }

  /** Writes last_used_at on a connection the pool has free, waiting a little for one; then on any. */
  async #recordUse(id: string, at: Date): Promise<void> {
    for (let look = 0; look < USAGE_WRITE_LOOKS; look++) {
      await new Promise((resolve) => setTimeout(resolve, this.deps.usageLookMs ?? USAGE_WRITE_DELAY_MS));
      if (this.deps.connectionFree()) break;
    }
    await touchApiKey(this.deps.db, id, at, this.deps.sessions);
  }

  async #read(id: string, now: number, chatId: string | undefined): Promise<ApiKeyForAuth | null> {
    const cached = this.#entries.get(id);
    // An entry read before the object knew its chat says nothing of the membership: read again.
    const fits = cached && (chatId === undefined || cached.found.inChatOrganization !== undefined);
    if (cached && fits && now - cached.readAt < this.deps.ttlMs) return cached.found;
    this.#entries.delete(id);
    const found = await findApiKeyForAuth(this.deps.db, id, chatId);
    if (found && this.deps.ttlMs > 0) {
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value as string);
      this.#entries.set(id, { found, readAt: now });
    }
    return found;
  }
}
