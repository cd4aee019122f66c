/**
 * The retention of debug runs (docs/debug-runs.md): each Cron Trigger run deletes runs older than
 * CHAT_DEBUG_RUN_RETENTION_HOURS, a bounded batch at a time until none is left or the budget of
 * batches is spent (the next run takes the rest).
 */
import type { Queryable } from "../db/rows";
import { purgeDebugRuns } from "../debug-runs/store";
import { logger } from "../log/log";

export const DEBUG_RUN_PURGE_BATCH = 500;
const MAX_BATCHES = 20;

export async function purgeExpiredDebugRuns(
  db: Queryable,
  options: { retentionHours: number; now: Date; batch?: number },
): Promise<number> {
  const before = new Date(options.now.getTime() - options.retentionHours * 3_600_000);
  const batch = options.batch ?? DEBUG_RUN_PURGE_BATCH;
  let deleted = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const n = await purgeDebugRuns(db, before, batch);
    deleted += n;
    if (n < batch) break;
  }
  if (deleted > 0) logger.info("debug_runs_purged", { deleted, retention_hours: options.retentionHours });
  return deleted;
}
