/**
 * Authentication where a warm connection already lives (a chat's object): the keys it has read are
 * kept in memory for at most `ttlMs`, so a chat's hot path (send, edit, interrupt, its reads and
 * sockets) authenticates without a database round trip.
 *
 * The bound: a key deleted or a user suspended stops authenticating within `ttlMs` of the change
 * (the next read of the key after its entry ages out sees it); expiry is checked against the
 * cached expiry on every call, so an expired key fails at once. The secret is verified against the
 * stored hash on every call; an unknown key id is never cached (no one fills memory with guesses).
 * `last_used_at` is recorded in the background, at most once a minute per key, as the Worker does.
 */
import type { Database } from "../db/database";
import { type ApiKeyForAuth, findApiKeyForAuth, touchApiKey, usageIsStale } from "./api-keys";
import { type Caller, callerOf, presentedKey } from "./authentication";

/** Entries kept at most; past it the oldest read goes first (a chat's object sees few keys). */
const MAX_ENTRIES = 256;

export interface VerifiedKeysDeps {
  db: Database;
  /** How long a read key is trusted; 0 reads it on every call. */
  ttlMs: number;
  now(): Date;
  /** Work that outlives the request (the last_used_at write). */
  background(work: Promise<unknown>): void;
}

interface Entry {
  found: ApiKeyForAuth;
  readAt: number;
}

export class VerifiedKeys {
  readonly #entries = new Map<string, Entry>();

  constructor(private readonly deps: VerifiedKeysDeps) {}

  /** The caller `token` authenticates as, or AuthenticationError. */
  async callerFor(token: string | undefined): Promise<Caller> {
    const { id, secret } = presentedKey(token);
    const now = this.deps.now();
    const found = await this.#read(id, now.getTime());
    const caller = await callerOf(found, secret, now);
    if (found && usageIsStale(found.key, now)) {
      // Recorded in memory first, so concurrent requests write it once.
      found.key.lastUsedAt = now;
      this.deps.background(touchApiKey(this.deps.db, id, now));
    }
    return caller;
  }

  async #read(id: string, now: number): Promise<ApiKeyForAuth | null> {
    const cached = this.#entries.get(id);
    if (cached && now - cached.readAt < this.deps.ttlMs) return cached.found;
    this.#entries.delete(id);
    const found = await findApiKeyForAuth(this.deps.db, id);
    if (found && this.deps.ttlMs > 0) {
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value as string);
      this.#entries.set(id, { found, readAt: now });
    }
    return found;
  }
}
