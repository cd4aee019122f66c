/**
 * How a task runs: "Goroutines ... may only exit in controlled ways. If they encounter an
 * unexpected error, they must retry the operation ... governed by bounded exponential backoff."
 * Expected exits: success, a stale fence, cancellation, a deleted chat.
 */
import { ChatNotFoundError } from "../chatstate/errors";
import { errorText, logger } from "../log/log";
import { FenceError } from "./fence";

export const TASK_RETRY_INITIAL_MS = 250;
export const TASK_RETRY_MAX_MS = 30_000;

export type TaskExit = "done" | "stale" | "cancelled" | "chat_deleted";

export async function runTask(
  name: string,
  signal: AbortSignal,
  body: () => Promise<void>,
  sleep: (ms: number, signal: AbortSignal) => Promise<void>,
): Promise<TaskExit> {
  for (let failures = 0; ; failures++) {
    if (signal.aborted) return "cancelled";
    try {
      await body();
      return "done";
    } catch (err) {
      if (signal.aborted) return "cancelled";
      if (err instanceof FenceError) return "stale";
      if (err instanceof ChatNotFoundError) return "chat_deleted";
      const delay = Math.min(TASK_RETRY_MAX_MS, TASK_RETRY_INITIAL_MS * 2 ** failures);
      logger.warn("runner_task_retry", { task: name, delay_ms: delay, error: errorText(err) });
      try {
        await sleep(delay, signal);
      } catch {
        return "cancelled";
      }
    }
  }
}
