/**
 * Deletes what nobody needs any more, in bounded batches (docs/retention.md):
 * - synthetic attribution keys (src/accounts/synthetic-key.ts) expired for a long time: an expired key
 *   is never handed out again (the next model call extends or mints under the per-user advisory
 *   lock), so the row is dead weight. Each delete takes that same lock without waiting: a key
 *   whose owner is minting right now is left for the next run.
 * - archived root chats past the retention period, counted from `archived_at`: the whole family
 *   (chats, messages, queue, heartbeats by cascade) and the family's file rows. The file rows'
 *   storage keys are returned so the caller deletes the bytes after COMMIT, as eviction does.
 *   Each family is one transaction that locks the root and rechecks, so an unarchive that wins
 *   the race keeps its chat.
 */
import { LOCK_NAMESPACE } from "../db/advisory-lock";
import type { Queryable } from "../db/rows";
import type { ChatStore } from "./store";
import { ATTRIBUTION_SCOPE } from "../accounts/synthetic-key";

function assertLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be a whole number >= 0, got ${limit}`);
}

/** Deletes at most `limit` synthetic attribution keys that expired before `expiredBefore`; returns their ids. */
export async function purgeExpiredAttributionKeys(db: Queryable, expiredBefore: Date, limit: number): Promise<string[]> {
  assertLimit(limit);
  if (limit === 0) return [];
  // One statement is one transaction: a try-lock taken here is held until the delete commits.
  const { rows } = await db.query(
    `WITH doomed AS (
       SELECT id FROM api_keys
       WHERE scope = $1 AND login_type <> 'token' AND expires_at < $2
       ORDER BY expires_at, id LIMIT $3)
     DELETE FROM api_keys k USING doomed
     WHERE k.id = doomed.id
       AND k.token_name = 'chatd_' || k.user_id::text || '_session_token'
       AND pg_try_advisory_xact_lock($4::int4, hashtext(k.user_id::text))
     RETURNING k.id`,
    [ATTRIBUTION_SCOPE, expiredBefore, limit, LOCK_NAMESPACE.attributionKey],
  );
  return rows.map((r) => String(r.id));
}

/** At most `limit` archived root chats archived before `archivedBefore`, oldest first. No locks. */
export async function findPurgeableChats(db: Queryable, archivedBefore: Date, limit: number): Promise<string[]> {
  assertLimit(limit);
  if (limit === 0) return [];
  const { rows } = await db.query(
    `SELECT id FROM chats WHERE parent_chat_id IS NULL AND archived AND archived_at < $1 ORDER BY archived_at, id LIMIT $2`,
    [archivedBefore, limit],
  );
  return rows.map((r) => String(r.id));
}

export interface PurgedFamily {
  /** Every chat deleted, the root first; empty when the recheck kept the family. */
  chatIds: string[];
  /** Storage keys of the family's files, whose rows are gone: delete the objects. */
  storageKeys: string[];
}

/** Deletes root `rootId`'s family if it is still archived since before `archivedBefore`. */
export async function purgeArchivedFamily(store: ChatStore, rootId: string, archivedBefore: Date): Promise<PurgedFamily> {
  return store.transaction(async (t) => {
    const [root] = await t.query<{ id: string }>(
      `SELECT id FROM chats WHERE id = $1 AND parent_chat_id IS NULL AND archived AND archived_at < $2 FOR UPDATE`,
      [rootId, archivedBefore],
    );
    if (root === undefined) return { chatIds: [], storageKeys: [] };
    const descendants = await t.query<{ id: string }>(`SELECT id FROM chats WHERE root_chat_id = $1 ORDER BY created_at, id FOR UPDATE`, [
      rootId,
    ]);
    const chatIds = [rootId, ...descendants.map((d) => d.id)];
    // chat_files.chat_id has no foreign key (a chat's rows are written only by transitions).
    const files = await t.query<{ storage_key: string }>(`DELETE FROM chat_files WHERE chat_id = ANY($1::uuid[]) RETURNING storage_key`, [
      chatIds,
    ]);
    // Messages, queue and heartbeats go by cascade.
    await t.query(`DELETE FROM chats WHERE id = ANY($1::uuid[])`, [chatIds]);
    return { chatIds, storageKeys: files.map((f) => f.storage_key) };
  });
}
