/**
 * The spec's "Auto-archive loop", one tick per Cron Trigger run: read a bounded batch of
 * candidates without locks, then archive each family through SetArchived(true) with the recheck
 * under the family lock (src/chats/auto-archive.ts). What the batch leaves waits for the
 * next minute. One failing family is logged and does not stop the others.
 */
import { archiveIfCandidate, dayCutoff, findAutoArchiveCandidates } from "../chats/auto-archive";
import type { ChatStore } from "../chats/store";
import { errorText, logger } from "../log/log";

/** Families archived at most per tick. */
export const AUTO_ARCHIVE_BATCH = 100;

export interface AutoArchiveTickOptions {
  /** CHAT_AUTO_ARCHIVE_DAYS; 0 turns the loop off. */
  days: number;
  now: Date;
  limit?: number;
}

export interface AutoArchiveTickResult {
  /** Root chats the lock-free read found. */
  candidates: number;
  /** Families archived. */
  archived: number;
  /** Chats whose marker changed, roots and descendants. */
  chats: number;
  /** Candidates that no longer qualified under the lock. */
  skipped: number;
  failed: number;
  /** Every chat archived, for the objects to hear of it. */
  chatIds: string[];
}

export async function autoArchiveTick(store: ChatStore, options: AutoArchiveTickOptions): Promise<AutoArchiveTickResult> {
  const result: AutoArchiveTickResult = { candidates: 0, archived: 0, chats: 0, skipped: 0, failed: 0, chatIds: [] };
  if (options.days === 0) {
    logger.debug("auto_archive_off");
    return result;
  }
  const cutoff = dayCutoff(options.now, options.days);
  const ids = await findAutoArchiveCandidates(store.pool, cutoff, options.limit ?? AUTO_ARCHIVE_BATCH);
  result.candidates = ids.length;
  for (const id of ids) {
    try {
      const outcome = await archiveIfCandidate(store, id, cutoff);
      if (!outcome.archived) {
        result.skipped++;
        continue;
      }
      result.archived++;
      result.chats += outcome.chats.length;
      result.chatIds.push(...outcome.chats.map((c) => c.id));
    } catch (err) {
      // A chat deleted since the read, or a family SetArchived refuses: the next tick reads again.
      result.failed++;
      logger.warn("auto_archive_failed", { chat_id: id, error: errorText(err) });
    }
  }
  const { chatIds: _ids, ...counts } = result;
  logger.info("auto_archive_done", { ...counts, cutoff: cutoff.toISOString() });
  return result;
}
