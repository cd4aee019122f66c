/**
 * The ownership transitions, "fully orthogonal to the execution state transitions":
 * - Acquire(worker_id, runner_id): "sets chats.worker_id and chats.runner_id, and inserts an
 *   initial heartbeat row for (chat_id, runner_id)". U --> O, O --> O; any execution state.
 * - Abandon: "clears worker_id and runner_id on the chat row". O --> U.
 * Both carry the compaction request forward. Fencing (is this still my runner?) is the caller's,
 * on the locked row, before calling.
 */
import type { OwnershipState } from "../../chatstate/index";
import type { ChatTx } from "../chat-tx";

export async function acquire(tx: ChatTx, input: { workerId: string; runnerId: string }): Promise<{ from: OwnershipState }> {
  const from = tx.ownership();
  tx.setOwnership("Acquire", input);
  // Written with the chat row, in the commit write's statement (one round trip less).
  tx.stageHeartbeat(input.runnerId);
  return { from };
}

export async function abandon(tx: ChatTx): Promise<{ runnerId: string | null }> {
  const runnerId = tx.chat.runnerId;
  tx.setOwnership("Abandon", null);
  return { runnerId };
}
