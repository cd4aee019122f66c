/**
 * The purge, one bounded batch per Cron Trigger run (docs/retention.md): long-expired synthetic
 * attribution keys always, archived chats past CHAT_ARCHIVE_RETENTION_DAYS when it is not 0. The
 * family's rows go in one transaction; its files' bytes are deleted after COMMIT (a failed object
 * delete leaves an orphan object, logged, never a row pointing at nothing).
 */
import { dayCutoff } from "../chats/auto-archive";
import { findPurgeableChats, purgeArchivedFamily, purgeExpiredAttributionKeys } from "../chats/purge";
import type { ChatStore } from "../chats/store";
import { errorText, logger } from "../log/log";

/** Rows of each kind deleted at most per tick. */
export const PURGE_BATCH = 100;
/** An attribution key expired this long ago is deleted (its owner made no model call for 31+ days before that). */
export const ATTRIBUTION_KEY_PURGE_AFTER_MS = 30 * 24 * 60 * 60 * 1000;

export interface PurgeTickOptions {
  /** CHAT_ARCHIVE_RETENTION_DAYS; 0 keeps archived chats forever. */
  retentionDays: number;
  now: Date;
  limit?: number;
  /** Deletes file objects by storage key (the FILES bucket); at most 1000 keys per call. */
  deleteFiles(keys: string[]): Promise<void>;
}

export interface PurgeTickResult {
  keys: number;
  /** Families deleted. */
  families: number;
  /** Chats deleted, roots and descendants. */
  chats: number;
  files: number;
  /** Candidates that no longer qualified under the lock (unarchived since the read). */
  skipped: number;
  failed: number;
}

/** R2's limit for one delete call. */
const R2_DELETE_MAX = 1000;

export async function purgeTick(store: ChatStore, options: PurgeTickOptions): Promise<PurgeTickResult> {
  const limit = options.limit ?? PURGE_BATCH;
  const result: PurgeTickResult = { keys: 0, families: 0, chats: 0, files: 0, skipped: 0, failed: 0 };
  const expiredBefore = new Date(options.now.getTime() - ATTRIBUTION_KEY_PURGE_AFTER_MS);
  result.keys = (await purgeExpiredAttributionKeys(store.pool, expiredBefore, limit)).length;

  if (options.retentionDays > 0) {
    const archivedBefore = dayCutoff(options.now, options.retentionDays);
    const storageKeys: string[] = [];
    for (const id of await findPurgeableChats(store.pool, archivedBefore, limit)) {
      try {
        const purged = await purgeArchivedFamily(store, id, archivedBefore);
        if (purged.chatIds.length === 0) {
          result.skipped++;
          continue;
        }
        result.families++;
        result.chats += purged.chatIds.length;
        storageKeys.push(...purged.storageKeys);
      } catch (err) {
        result.failed++;
        logger.warn("purge_chat_failed", { chat_id: id, error: errorText(err) });
      }
    }
    for (let i = 0; i < storageKeys.length; i += R2_DELETE_MAX) {
      const chunk = storageKeys.slice(i, i + R2_DELETE_MAX);
      try {
        await options.deleteFiles(chunk);
        result.files += chunk.length;
      } catch (err) {
        logger.warn("purge_files_failed", { count: chunk.length, error: errorText(err) });
      }
    }
  }
  logger.info("purge_done", { ...result, retention_days: options.retentionDays });
  return result;
}
