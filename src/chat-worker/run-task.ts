/**
 * How a task ends: "Goroutines ... may only exit in controlled ways. If they encounter an
 * unexpected error, they must retry the operation ... governed by bounded exponential backoff."
 * Expected exits: success, a stale fence, cancellation, a deleted chat. The runner's task loop
 * (ChatRunner) asks here after each failed run of a task's body.
 */
import { ChatNotFoundError } from "../chatstate/errors";
import { errorText, logger } from "../log/log";
import { FenceError } from "./fence";

export const TASK_RETRY_INITIAL_MS = 250;
export const TASK_RETRY_MAX_MS = 30_000;

export type TaskExit = "done" | "stale" | "cancelled" | "chat_deleted";

/**
 * After the `failures`-th failure of a task's body (0 for the first) on `err`: its controlled exit,
 * or "retry" once the backoff has been slept (a cancellation during it is the exit "cancelled").
 */
export async function exitOrRetry(
  name: string,
  err: unknown,
  failures: number,
  signal: AbortSignal,
  sleep: (ms: number, signal: AbortSignal) => Promise<void>,
): Promise<TaskExit | "retry"> {
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
  return signal.aborted ? "cancelled" : "retry";
}
