/**
 * Uploads no message attached are deleted after CHAT_UNATTACHED_UPLOAD_TTL_HOURS (docs/fairness.md
 * "Quotas"): otherwise a tenant could store bytes forever without a chat to show for them. The
 * row goes first; a message attaching the file at the same moment either linked it already (the
 * DELETE rechecks `chat_id IS NULL` on the locked row and skips it) or finds it missing (400).
 */
import type { Queryable } from "./file-rows";

/** Rows per cron run; the next run takes the rest. */
const PURGE_BATCH = 500;

export async function purgeUnattachedUploads(
  db: Queryable,
  options: { olderThan: Date; deleteBytes(storageKeys: string[]): Promise<void> },
): Promise<number> {
  const { rows } = await db.query(
    `DELETE FROM chat_files WHERE id IN (
       SELECT id FROM chat_files WHERE chat_id IS NULL AND created_at < $1 ORDER BY created_at LIMIT $2
     ) AND chat_id IS NULL
     RETURNING storage_key`,
    [options.olderThan, PURGE_BATCH],
  );
  const keys = rows.map((row) => String(row.storage_key));
  if (keys.length > 0) await options.deleteBytes(keys);
  return keys.length;
}
