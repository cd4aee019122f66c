/**
 * A slot was released: "wakes the oldest waiting chats at once" instead of leaving them to the
 * cron sweep. Each gets an ownership hint at its own object; the chat that released the slot is
 * not one of them. A pool without a limit or shares has no chat waiting for a slot (admission
 * never refuses one for capacity), so its releases read nothing: one query less after every turn.
 * A chat refused before the limit was lifted is the sweep's.
 */
import type { Queryable } from "../../src/db/rows";
import { isLimited, type PoolAdmission } from "../../src/chat-worker/leases/pools";
import { findWaitingForSlot } from "../../src/chat-worker/leases/sweep";
import { errorText, logger } from "../../src/log/log";

/** How many waiting chats one released slot wakes. */
const WAKE_LIMIT = 5;

export interface WakeWaitingOptions {
  /** The released slot's pool: root chats or subagents. */
  isRoot: boolean;
  /** That pool's admission: its slots and the tenants' shares (0: none). */
  admission: PoolAdmission;
  staleThresholdMs: number;
  /** The chat that released the slot. */
  ownChatId: string | undefined;
  /** Sends the ownership hint to that chat's object. */
  wake(chatId: string): void;
}

export async function wakeWaiting(db: Queryable, options: WakeWaitingOptions): Promise<void> {
  if (!isLimited(options.admission)) return;
  try {
    const ids = await findWaitingForSlot(db, {
      pool: options.isRoot ? "root" : "subagent",
      admission: options.admission,
      limit: WAKE_LIMIT,
      staleThresholdMs: options.staleThresholdMs,
    });
    for (const id of ids) if (id !== options.ownChatId) options.wake(id);
  } catch (err) {
    logger.warn("wake_waiting_failed", { error: errorText(err) });
  }
}
