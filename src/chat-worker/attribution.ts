/**
 * Attribution for every model call a chat makes (turns here; compaction and titles call
 * attributionFor too): the owner's synthetic key, resolved by resolveAttributionKey (one read for a
 * live key; a mint or an in-place extension under the per-user advisory lock otherwise) and then
 * kept in the isolate's memory (one cache for all its chat objects), so a turn does not pay for it.
 *
 * A cached id is reused until the key nears its extension window (less than 24 h + margin left:
 * then the next call re-resolves, which extends it in place) and at most OWNER_RECHECK_MS after it
 * was resolved, so a suspended or deleted owner is blocked within that bound.
 */
import { ATTRIBUTION_KEY_EXTEND_BELOW_MS, resolveAttributionKey } from "../accounts/synthetic-key";
import type { Database } from "../db/database";
import type { ChatRow } from "../db/schema/chats";
import { type Attribution, attributionRequest } from "../llm/attribution";

/** How stale the owner's suspended/deleted status may be on the hot path. */
export const OWNER_RECHECK_MS = 60_000;
/** Owners kept at most by default; the oldest entry goes first (an entry is small, an isolate lives long). */
const MAX_OWNERS = 10_000;
/** Re-resolve this long before the extension window opens, so a running turn never crosses it. */
const EXTEND_MARGIN_MS = 60 * 60 * 1000;

interface Cached {
  keyId: string;
  reuseUntil: number;
}

export class AttributionKeyCache {
  readonly #byOwner = new Map<string, Cached>();

  constructor(private readonly maxOwners = MAX_OWNERS) {}

  async keyIdFor(db: Database, ownerId: string, now: Date): Promise<string> {
    const cached = this.#byOwner.get(ownerId);
    if (cached && now.getTime() < cached.reuseUntil) return cached.keyId;
    this.#byOwner.delete(ownerId);
    const key = await resolveAttributionKey(db, ownerId, now);
    const reuseUntil = Math.min(
      key.expiresAt.getTime() - ATTRIBUTION_KEY_EXTEND_BELOW_MS - EXTEND_MARGIN_MS,
      now.getTime() + OWNER_RECHECK_MS,
    );
    this.#byOwner.set(ownerId, { keyId: key.id, reuseUntil });
    if (this.#byOwner.size > this.maxOwners) this.#byOwner.delete(this.#byOwner.keys().next().value as string);
    return key.id;
  }
}

export interface AttributionDeps {
  db: Database;
  now(): Date;
  /** The isolate's cache (shared by its chat objects). */
  attributionKeys: AttributionKeyCache;
}

/**
 * The headers and body id for a model call on `chat`. Throws AttributionOwnerSuspendedError or
 * AttributionOwnerNotFoundError when the owner may not generate (src/accounts/synthetic-key.ts).
 */
export async function attributionFor(deps: AttributionDeps, chat: Pick<ChatRow, "id" | "ownerId">): Promise<Attribution> {
  const keyId = await deps.attributionKeys.keyIdFor(deps.db, chat.ownerId, deps.now());
  return attributionRequest(keyId, chat.id);
}
