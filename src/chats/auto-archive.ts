/**
 * The spec's "Auto-archive loop", database side. A candidate is a root chat that is unarchived,
 * unpinned (pin_order 0), not running, interrupting or requires_action, created before the
 * cutoff, and whose family's newest non-deleted message is older than the cutoff. One rule here
 * beyond the spec's: no descendant may be busy either, because SetArchived refuses the whole
 * family then; a family it would refuse is no candidate, so it cannot sit at the head of every batch.
 *
 * The candidate read holds no lock. Each candidate is then archived through SetArchived(true) on
 * the family (ChatStore.setArchived, transitions/set-archived.ts), whose transaction locks the
 * root and every descendant and runs the same predicate again before deciding anything: a family
 * that no longer qualifies (a message arrived after the read) is skipped without a write. Only messages count
 * as activity, so a chat unarchived without a new message is archived again on the next tick.
 */
import type { ChatRow } from "../db/schema/chats";
import type { Queryable } from "../db/rows";
import type { ChatStore } from "./store";

const DAY_MS = 24 * 60 * 60 * 1000;

/** "00:00 UTC of the current day minus the configured number of auto-archive days." */
export function dayCutoff(now: Date, days: number): Date {
  if (!Number.isInteger(days) || days < 1) throw new RangeError(`days must be a whole number >= 1, got ${days}`);
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(midnight - days * DAY_MS);
}

/** Statuses a candidate (and, here, every chat of its family) must not have. */
const BUSY_STATUSES = ["running", "interrupting", "requires_action"];

/**
 * The candidate conditions on root chat `c`, with the cutoff as parameter `$cutoff` and the busy
 * statuses as `$busy`. The candidate read and the recheck under the lock use this one text.
 */
function candidateSql(c: string, cutoff: number, busy: number): string {
  return `${c}.parent_chat_id IS NULL AND NOT ${c}.archived AND ${c}.pin_order = 0
    AND ${c}.created_at < $${cutoff}
    AND NOT (${c}.status = ANY($${busy}::text[]))
    AND NOT EXISTS (SELECT 1 FROM chats d WHERE d.root_chat_id = ${c}.id AND d.status = ANY($${busy}::text[]))
    AND NOT EXISTS (SELECT 1 FROM chat_messages m WHERE m.chat_id = ${c}.id AND NOT m.deleted AND m.created_at >= $${cutoff})
    AND NOT EXISTS (
      SELECT 1 FROM chats d JOIN chat_messages m ON m.chat_id = d.id
      WHERE d.root_chat_id = ${c}.id AND NOT m.deleted AND m.created_at >= $${cutoff})`;
}

/** At most `limit` candidate root ids, oldest first (ties by id). No locks: a hint for archiveIfCandidate. */
export async function findAutoArchiveCandidates(db: Queryable, cutoff: Date, limit: number): Promise<string[]> {
  if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be a whole number >= 0, got ${limit}`);
  if (limit === 0) return [];
  const { rows } = await db.query(`SELECT c.id FROM chats c WHERE ${candidateSql("c", 1, 2)} ORDER BY c.created_at, c.id LIMIT $3`, [
    cutoff,
    BUSY_STATUSES,
    limit,
  ]);
  return rows.map((r) => String(r.id));
}

export type AutoArchiveOutcome = { archived: true; chats: ChatRow[] } | { archived: false };

/**
 * SetArchived(true) on the family of root `rootId`, if it still qualifies once the family is
 * locked. `chats` lists every chat whose marker changed, the root first.
 */
export async function archiveIfCandidate(store: ChatStore, rootId: string, cutoff: Date): Promise<AutoArchiveOutcome> {
  const result = await store.setArchived(rootId, true, {
    recheck: async (t) => {
      const [row] = await t.query<{ ok: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM chats c WHERE c.id = $3 AND ${candidateSql("c", 1, 2)}) AS ok`,
        [cutoff, BUSY_STATUSES, rootId],
      );
      return row?.ok === true;
    },
  });
  return result.skipped ? { archived: false } : { archived: true, chats: result.chats };
}
