/**
 * The Cron Trigger, once a minute: the acquisition sweep, the auto-archive loop, the purge, uploads
 * no message attached within their TTL, the sign-in failures that count for nothing any more, and
 * the chats left without a generated title (docs/titles.md), on one short-lived pool. Each step runs even when an earlier one failed; the first failure is
 * rethrown at the end so the run shows as failed. Chats the loop archives are told to their
 * objects, as a PATCH would (their open streams see the new state at once).
 */
import { configFromEnv, type Config } from "../config/env";
import { connectionOf, createDb, createPool } from "../db/client";
import { purgeStaleFailures } from "../accounts/sign-in-throttle";
import { ChatStore } from "../chats/store";
import { errorText, logger, setLogLevel } from "../log/log";
import { autoArchiveTick } from "./auto-archive";
import { purgeTick } from "./purge";
import { purgeUnattachedUploads } from "../files/unattached-purge";
import { sweep } from "./sweep";
import { purgeExpiredDebugRuns } from "./debug-runs";
import { titleRetryTick } from "./titles";
import { chatObjectStub } from "../placement/chat-object-stub";
import { objectsNotifier } from "../chats/objects-notifier";
import { chatWatchers, notifyingWatchers } from "../chats/chat-watchers";

export async function runScheduled(env: Env, waitUntil: (p: Promise<unknown>) => void): Promise<void> {
  const config: Config = configFromEnv(env);
  setLogLevel(config.LOG_LEVEL);
  const pool = createPool({ ...connectionOf(config), max: 2 });
  // Each transition to its chat's object and to its owner's chat list watchers.
  const notifier = notifyingWatchers(objectsNotifier(env, waitUntil, "cron"), chatWatchers(env, waitUntil, "cron"));
  const store = new ChatStore(pool, {
    notifier,
    staleThresholdMs: config.CHAT_STALE_THRESHOLD_MS,
    requiresActionTimeoutMs: config.CHAT_REQUIRES_ACTION_TIMEOUT_MS,
    maxQueueLength: config.CHAT_MAX_QUEUED_MESSAGES,
  });
  const now = new Date();
  const failures: unknown[] = [];
  const step = async (name: string, run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (err) {
      failures.push(err);
      logger.error("cron_step_failed", { step: name, error: errorText(err) });
    }
  };
  try {
    await step("sweep", () => sweep(env, pool, config, waitUntil));
    await step("auto_archive", () => autoArchiveTick(store, { days: config.CHAT_AUTO_ARCHIVE_DAYS, now }));
    await step("purge", () =>
      purgeTick(store, {
        retentionDays: config.CHAT_ARCHIVE_RETENTION_DAYS,
        now,
        deleteFiles: (keys) => env.FILES.delete(keys),
      }),
    );
    await step("unattached_uploads", () =>
      purgeUnattachedUploads(pool, {
        olderThan: new Date(now.getTime() - config.CHAT_UNATTACHED_UPLOAD_TTL_HOURS * 3_600_000),
        deleteBytes: (keys) => env.FILES.delete(keys),
      }),
    );
    await step("sign_in_failures", () => purgeStaleFailures(createDb(pool), now));
    await step("debug_runs", () => purgeExpiredDebugRuns(pool, { retentionHours: config.CHAT_DEBUG_RUN_RETENTION_HOURS, now }));
    await step("title_retry", () => titleRetryTick(pool, { retryTitle: (id) => chatObjectStub(env, id).retryTitle(id) }, { now }));
  } finally {
    waitUntil(pool.end());
  }
  if (failures.length > 0) throw failures[0];
}
