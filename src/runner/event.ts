/**
 * The spec's runner event ("Event shape"): what the loop needs to decide which task should run.
 * Built from a `chat:update` payload, a database sync row, or a committed row (task fast path).
 */
import type { ChatStatus } from "../chatstate/states";
import type { ChatUpdatePayload } from "../db/notifier";
import type { ChatRow } from "../db/schema/chats";

export interface RunnerEvent {
  workerId: string | null;
  runnerId: string | null;
  snapshotVersion: number;
  historyVersion: number;
  generationAttempt: number;
  archived: boolean;
  status: ChatStatus;
}

export function eventFromPayload(p: ChatUpdatePayload): RunnerEvent {
  return {
    workerId: p.worker_id,
    runnerId: p.runner_id,
    snapshotVersion: p.snapshot_version,
    historyVersion: p.history_version,
    generationAttempt: p.generation_attempt,
    archived: p.archived,
    status: p.status,
  };
}

export function eventFromRow(
  c: Pick<ChatRow, "workerId" | "runnerId" | "snapshotVersion" | "historyVersion" | "generationAttempt" | "archived" | "status">,
): RunnerEvent {
  return {
    workerId: c.workerId,
    runnerId: c.runnerId,
    snapshotVersion: c.snapshotVersion,
    historyVersion: c.historyVersion,
    generationAttempt: c.generationAttempt,
    archived: c.archived,
    status: c.status,
  };
}
