/**
 * The spec's periodic acquisition pass and heartbeat cleanup. Runnable chats without a fresh
 * lease get a wake-up on their object, which then tries to acquire them (ownership hints are the
 * fast path; this is what catches a chat whose owner died or whose hint was lost).
 */
import type { Pool } from "@neondatabase/serverless";
import type { Config } from "../config/env";
import { cleanupHeartbeats } from "../chat-worker/leases/heartbeats";
import { findRunnableUnowned } from "../chat-worker/leases/sweep";
import { errorText, logger } from "../log/log";
import { chatObjectStub } from "../placement/chat-object-stub";

/** Chats woken per run; the rest wait for the next minute (hints cover the common case). */
export const SWEEP_BATCH = 200;

export async function sweep(
  env: Env,
  pool: Pool,
  config: Config,
  waitUntil: (p: Promise<unknown>) => void,
): Promise<{ woken: number; cleaned: number }> {
  const ids = await findRunnableUnowned(pool, { staleThresholdMs: config.CHAT_STALE_THRESHOLD_MS, limit: SWEEP_BATCH });
  for (const id of ids) {
    const stub = chatObjectStub(env, id);
    waitUntil(
      stub
        .wake({ chat_id: id, snapshot_version: 0 })
        .catch((err: unknown) => logger.warn("sweep_wake_failed", { chat_id: id, error: errorText(err) })),
    );
  }
  const cleaned = await cleanupHeartbeats(pool, config.CHAT_STALE_THRESHOLD_MS);
  logger.info("sweep_done", { woken: ids.length, heartbeats_cleaned: cleaned });
  return { woken: ids.length, cleaned };
}
