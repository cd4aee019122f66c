/** Debug runs' typed errors: a run the chat does not hold answers 404 like any missing resource. */
import { ChatStateError } from "../chatstate/errors";

export class DebugRunNotFoundError extends ChatStateError {
  override name = "DebugRunNotFoundError";
  override readonly code = "not_found";
  constructor(
    readonly chatId: string,
    readonly runId: string,
  ) {
    super(`debug run ${runId} not found in chat ${chatId}`);
  }
}
