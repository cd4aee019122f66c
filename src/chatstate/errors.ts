/**
 * Domain errors of the state machine. Each carries structured fields and a stable `code`; the HTTP
 * layer maps codes to responses in one place and never inspects `message`.
 */
import type { ClassifiedState, OwnershipState } from "./states";
import type { TransitionName } from "./transition-names";

export const CHAT_STATE_ERROR_CODES = ["transition_not_allowed", "invalid_state", "not_found"] as const;
export type ChatStateErrorCode = (typeof CHAT_STATE_ERROR_CODES)[number];

export abstract class ChatStateError extends Error {
  abstract readonly code: ChatStateErrorCode;
}

export function isChatStateError(error: unknown): error is ChatStateError {
  return error instanceof ChatStateError;
}

/** The diagram has no edge for this transition from this state (409). */
export class TransitionNotAllowedError extends ChatStateError {
  override name = "TransitionNotAllowedError";
  override readonly code = "transition_not_allowed";
  constructor(
    readonly transition: TransitionName,
    readonly from: ClassifiedState | OwnershipState,
  ) {
    super(`${transition} is not allowed from ${from}`);
  }
}

/** The row matches no state of the spec's table; only ReconcileInvalidState may touch it (409). */
export class InvalidStateError extends ChatStateError {
  override name = "InvalidStateError";
  override readonly code = "invalid_state";
  readonly chatId: string | undefined;
  readonly status: string;
  readonly archived: boolean;
  readonly queueLength: number;
  constructor(fields: { chatId?: string; status: string; archived: boolean; queueLength: number }) {
    const chat = fields.chatId === undefined ? "chat" : `chat ${fields.chatId}`;
    super(
      `${chat} is in an invalid state (status ${fields.status}, archived ${fields.archived}, ` +
        `${fields.queueLength} queued); reconcile it to continue`,
    );
    this.chatId = fields.chatId;
    this.status = fields.status;
    this.archived = fields.archived;
    this.queueLength = fields.queueLength;
  }
}

/** State N for any transition but Create (404). */
export class ChatNotFoundError extends ChatStateError {
  override name = "ChatNotFoundError";
  override readonly code = "not_found";
  constructor(readonly chatId: string) {
    super(`chat ${chatId} not found`);
  }
}

/** DeleteQueuedMessage / PromoteQueuedMessage named a queue row the chat does not hold (404). */
export class QueuedMessageNotFoundError extends ChatStateError {
  override name = "QueuedMessageNotFoundError";
  override readonly code = "not_found";
  constructor(
    readonly chatId: string,
    readonly queuedMessageId: number,
  ) {
    super(`queued message ${queuedMessageId} not found in chat ${chatId}`);
  }
}

/** EditMessage named a message that is not in the chat's active history (404). */
export class MessageNotFoundError extends ChatStateError {
  override name = "MessageNotFoundError";
  override readonly code = "not_found";
  constructor(
    readonly chatId: string,
    readonly messageId: number,
  ) {
    super(`message ${messageId} not found in chat ${chatId}`);
  }
}

/**
 * A caller bug, not a domain outcome: a transition was asked to land without the variant that decides
 * its edge, or with one the input state cannot produce. No `code`: the HTTP layer treats it as a 500.
 */
export class TransitionVariantError extends Error {
  override name = "TransitionVariantError";
  readonly expected: readonly string[];
  constructor(
    readonly transition: TransitionName,
    readonly from: ClassifiedState,
    readonly variant: string | undefined,
    expected: readonly string[],
  ) {
    const given = variant === undefined ? "no variant" : `variant "${variant}"`;
    const wanted = expected.length === 0 ? "no variant" : `one of ${expected.map((v) => `"${v}"`).join(", ")}`;
    super(`${transition} from ${from} was given ${given}; expected ${wanted}`);
    this.expected = expected;
  }
}
