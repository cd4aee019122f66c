/**
 * Beyond the spec: a client that reconnects may say which versions it already holds
 * (`GET /chats/{chat}/stream?history_version=..&queue_version=..`), and its loop starts from them
 * instead of the null state, so the bootstrap sends only what changed since. Without them the
 * spec's full bootstrap. `snapshot_version` and `worker_id` are not accepted: the bootstrap always
 * applies the fetched row, so the status and the relay are always set up.
 */
import { z } from "zod";
import { CHAT_STATUSES } from "../chatstate/states";
import { NULL_CURSORS, type StreamCursors } from "./sync-state";

const version = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const resumeQuerySchema = z
  .object({
    history_version: version.optional(),
    queue_version: version.optional(),
    retry_state_version: version.optional(),
    generation_attempt: version.optional(),
    /** The last `message_part` seq received of the episode (history_version, generation_attempt). */
    last_part_seq: version.optional(),
    status: z.enum(CHAT_STATUSES).optional(),
    error_history_version: version.optional(),
    action_required_history_version: version.optional(),
  })
  .refine((q) => q.last_part_seq === undefined || (q.generation_attempt !== undefined && q.history_version !== undefined), {
    message: "last_part_seq needs history_version and generation_attempt",
    path: ["last_part_seq"],
  });

export type ResumeQuery = z.infer<typeof resumeQuerySchema>;

export function cursorsFromResume(q: ResumeQuery): StreamCursors {
  return {
    ...NULL_CURSORS,
    historyVersion: q.history_version ?? 0,
    queueVersion: q.queue_version ?? 0,
    retryStateVersion: q.retry_state_version ?? 0,
    generationAttempt: q.generation_attempt ?? 0,
    lastPartSeq: q.last_part_seq ?? 0,
    status: q.status ?? null,
    errorHistoryVersion: q.error_history_version ?? 0,
    actionRequiredHistoryVersion: q.action_required_history_version ?? 0,
  };
}

/** The cursors the route put in the forwarded request's header; the null state when absent. */
export function parseCursorsHeader(value: string | null): StreamCursors {
  if (!value) return { ...NULL_CURSORS };
  return { ...NULL_CURSORS, ...(JSON.parse(value) as Partial<StreamCursors>) };
}
