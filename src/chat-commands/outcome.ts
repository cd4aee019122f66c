/**
 * What a ChatObject's chat command returns across the RPC boundary: its value, or its error as a
 * plain value (src/chat-commands/error-value.ts) that the Worker maps to its HTTP answer. A failure
 * that is the service's own is logged here, where the error and its stack still exist.
 */
import { errorText, logger } from "../log/log";
import { type ErrorValue, errorValue, isServiceFault } from "./error-value";

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ErrorValue };

export async function outcome<T>(command: string, fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    const error = errorValue(err);
    if (isServiceFault(error)) {
      logger.error("chat_command_failed", {
        command,
        error: errorText(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
    }
    return { ok: false, error };
  }
}
