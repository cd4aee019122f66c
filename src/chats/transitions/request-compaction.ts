/**
 * RequestCompaction: "records a manual compaction request on an idle or errored chat by setting
 * compaction_requested_at and landing in running without inserting any message. It clears
 * last_error per the leave-error rule, advances history_version to the transaction's new
 * snapshot_version, and resets generation_attempt." W, E0 --> R0; E1 --> R1.
 * The endpoint's check runs in the same transaction: "at least one uncompressed assistant message
 * after the latest compaction boundary", else NothingToCompactError and nothing is written.
 */
import type { ChatTx } from "../chat-tx";
import { NothingToCompactError } from "../errors";
import { hasSomethingToCompact } from "../history";

export async function requestCompaction(tx: ChatTx, input: { now?: Date } = {}): Promise<{ requestedAt: Date }> {
  const from = tx.from("RequestCompaction");
  if (!(await hasSomethingToCompact(tx))) throw new NothingToCompactError(tx.chatId);
  await tx.grantHistoryEpoch();
  await tx.land("RequestCompaction", from, undefined);
  const requestedAt = input.now ?? tx.now();
  tx.set({ compactionRequestedAt: requestedAt });
  return { requestedAt };
}
