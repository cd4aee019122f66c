/**
 * The cron's title retry (docs/titles.md): a root chat still on its fallback title long after its
 * last title attempt started (TITLE_RETRY_AFTER_MS), with attempts left, gets one more, from its
 * own object, which claims the attempt before calling. So a crash between the first prompt and the
 * title does not leave a chat untitled for good, and a chat whose model keeps failing is tried
 * TITLE_MAX_ATTEMPTS times in all.
 */
import { findUntitledChats } from "../chats/title";
import type { Queryable } from "../db/rows";
import { errorText, logger } from "../log/log";

/** Chats retried per run at most; the rest wait for the next minute. */
export const TITLE_RETRY_BATCH = 50;

export interface TitleRetryTarget {
  /** Asks the chat's object to start one more title attempt (ChatObject.retryTitle). */
  retryTitle(chatId: string): Promise<void>;
}

export async function titleRetryTick(
  db: Queryable,
  target: TitleRetryTarget,
  options: { now: Date; limit?: number },
): Promise<{ retried: number; failed: number }> {
  const ids = await findUntitledChats(db, options.now, options.limit ?? TITLE_RETRY_BATCH);
  const outcomes = await Promise.allSettled(ids.map((id) => target.retryTitle(id)));
  let failed = 0;
  outcomes.forEach((outcome, i) => {
    if (outcome.status === "fulfilled") return;
    failed++;
    logger.warn("title_retry_failed", { chat_id: ids[i], error: errorText(outcome.reason) });
  });
  if (ids.length > 0) logger.info("title_retry_done", { retried: ids.length - failed, failed });
  return { retried: ids.length - failed, failed };
}
