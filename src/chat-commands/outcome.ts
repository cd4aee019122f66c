/**
 * What a ChatObject RPC method returns. Errors do not cross the RPC boundary with their class or
 * fields, so each command maps its error to the API's answer inside the object, with the same
 * single mapping the Worker uses, and the route turns it back into an ApiError.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError, type ErrorBody, errorBody, toApiError } from "../http/errors";
import { errorText, logger } from "../log";

export type Outcome<T> = { ok: true; value: T } | { ok: false; status: ContentfulStatusCode; error: ErrorBody };

export async function outcome<T>(command: string, fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    const apiError = toApiError(err);
    if (apiError.status >= 500) {
      logger.error("chat_command_failed", {
        command,
        error: errorText(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
    }
    return { ok: false, status: apiError.status, error: errorBody(apiError) };
  }
}

/** In a route: the value, or the command's error as the response. */
export function unwrap<T>(result: Outcome<T>): T {
  if (result.ok) return result.value;
  const { message, code, detail, validations } = result.error;
  throw new ApiError(result.status, code, message, detail, validations);
}
