/**
 * The spec's runner event ("Event shape"): what the loop needs to decide which task should run.
 * A committed row (the task fast path) and the database sync's read (`ChatSyncRow`) already have
 * this shape and are events as they are; a `chat:update` payload is read through its versions.
 */
import { type ChatVersions, versionsFromNotification } from "../chatstate/chat-versions";
import type { ChatUpdatePayload } from "../chats/notifier";

export interface RunnerEvent
  extends Pick<ChatVersions, "workerId" | "snapshotVersion" | "historyVersion" | "generationAttempt" | "status"> {
  runnerId: string | null;
  archived: boolean;
}

export function eventFromPayload(p: ChatUpdatePayload): RunnerEvent {
  return { ...versionsFromNotification(p), runnerId: p.runner_id, archived: p.archived };
}
