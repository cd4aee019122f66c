/**
 * A task's fence: "The goroutines are spawned knowing their intended history version, chat status,
 * and runner ID. Whenever they access the database, either for reading or writing, they must lock
 * the chat and ensure that values in the database match the intended values."
 */
import type { ChatStatus } from "../chatstate/states";
import type { ChatRow } from "../db/schema/chats";

export interface Fence {
  chatId: string;
  workerId: string;
  runnerId: string;
  historyVersion: number;
  /** Null for the abandon task, which only needs to still own the chat. */
  status: ChatStatus | null;
}

/** The chat moved on: the task's work is stale. An expected exit, not a failure. */
export class FenceError extends Error {
  override name = "FenceError";
  constructor(
    readonly fence: Fence,
    readonly found: Pick<ChatRow, "historyVersion" | "status" | "runnerId" | "workerId">,
  ) {
    super(
      `stale task for chat ${fence.chatId}: intended history ${fence.historyVersion}/${fence.status}/${fence.runnerId}, ` +
        `found ${found.historyVersion}/${found.status}/${found.runnerId}`,
    );
  }
}

export function checkFence(chat: Pick<ChatRow, "historyVersion" | "status" | "runnerId" | "workerId">, fence: Fence): void {
  const owned = chat.runnerId === fence.runnerId && chat.workerId === fence.workerId;
  const sameWork = fence.status === null || (chat.historyVersion === fence.historyVersion && chat.status === fence.status);
  if (!owned || !sameWork) throw new FenceError(fence, chat);
}
