/**
 * The worker's per-attempt bookkeeping, both R0 --> R0 and R1 --> R1:
 * - RecordGenerationAttempt: "verifies the chat is still running, increments generation_attempt"
 *   (the retry-state trigger then clears retry_state);
 * - RecordRetryState(payload): "verifies the chat is still running, stores the retry payload sent
 *   to clients as retry_state" (the trigger sets retry_state_version).
 * The updated snapshot is the committed chat the store returns.
 *
 * RecordGenerationAttempt also has a one-statement form for the runner that owns the chat
 * (`ownedAttemptStatement`, run by ChatStore.recordOwnedAttempt): it is on the path before every
 * model call, and the transition reads nothing the runner does not already know.
 */
import type { ChatTx } from "../chat-tx";
import { committedExtrasSql } from "../commit-write";
import { unchangedSinceSnapshotSql } from "../row-lock";
import type { RetryState } from "../../db/schema/chats";

export async function recordGenerationAttempt(tx: ChatTx): Promise<void> {
  const from = tx.from("RecordGenerationAttempt");
  await tx.incrementGenerationAttempt();
  await tx.land("RecordGenerationAttempt", from, undefined);
}

export async function recordRetryState(tx: ChatTx, input: { retryState: RetryState }): Promise<void> {
  const from = tx.from("RecordRetryState");
  await tx.setRetryState(input.retryState);
  await tx.land("RecordRetryState", from, undefined);
}

/** The row a runner owns and expects to find running: its fence, in the store's terms. */
export interface OwnedRunningChat {
  chatId: string;
  workerId: string;
  runnerId: string;
  historyVersion: number;
}

/**
 * RecordGenerationAttempt as one UPDATE: the row lock, the snapshot bump and the transition's
 * writes, with everything the transaction would check in its WHERE, evaluated on the locked row.
 * A row that is not the owned, running, unarchived row at `historyVersion` (R0 or R1) matches
 * nothing and nothing is written. Besides the increment, `land` writes, for a landing in R0 or R1,
 * no pending-action deadline and `updated_at`; it keeps the error, the compaction marker and the
 * rest. The RETURNING gives what a commit write gives (committedFromRaw), plus `unchanged`: false
 * when something committed on the chat while the statement waited for the lock, whose queue count
 * then comes from before that commit.
 */
export function ownedAttemptStatement(owned: OwnedRunningChat, staleThresholdMs: number): { text: string; values: unknown[] } {
  return {
    text: `UPDATE chats SET snapshot_version = snapshot_version + 1, generation_attempt = generation_attempt + 1,
        requires_action_deadline_at = NULL, updated_at = now()
      WHERE id = $1 AND worker_id = $2 AND runner_id = $3 AND history_version = $4 AND status = 'running' AND NOT archived
      RETURNING *, ${committedExtrasSql(5)}, ${unchangedSinceSnapshotSql("chats", 1)} AS unchanged`,
    values: [owned.chatId, owned.workerId, owned.runnerId, owned.historyVersion, staleThresholdMs],
  };
}
