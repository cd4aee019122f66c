/**
 * Errors of the chat store beyond the state machine's own (src/chatstate/errors.ts). Each has
 * a stable `code` for the one HTTP error mapping; nothing classifies them by message text.
 * All of them are raised inside the transaction, which then rolls back and publishes nothing.
 */
import type { ClassifiedState } from "../chatstate/states";

export type ChatStoreErrorCode =
  | "nothing_to_compact"
  | "nothing_to_clear"
  | "queue_full"
  | "family_archived"
  | "parent_archived"
  | "invalid_transition_input"
  | "tool_results_mismatch";

export abstract class ChatStoreError extends Error {
  abstract readonly code: ChatStoreErrorCode;
}

/** RequestCompaction: no uncompressed assistant message follows the latest boundary (409). */
export class NothingToCompactError extends ChatStoreError {
  override name = "NothingToCompactError";
  override readonly code = "nothing_to_compact";
  constructor(readonly chatId: string) {
    super(`chat ${chatId} has nothing to compact`);
  }
}

/** ClearContext: no active model-visible non-system message follows the latest boundary (409). */
export class NothingToClearError extends ChatStoreError {
  override name = "NothingToClearError";
  override readonly code = "nothing_to_clear";
  constructor(readonly chatId: string) {
    super(`chat ${chatId} has nothing to clear`);
  }
}

/** A queueing SendMessage on a chat whose queue already holds the maximum (429). */
export class QueueFullError extends ChatStoreError {
  override name = "QueueFullError";
  override readonly code = "queue_full";
  constructor(
    readonly chatId: string,
    readonly max: number,
  ) {
    super(`chat ${chatId} already has ${max} queued messages`);
  }
}

/** Create(child): "fails if the root is archived, so a new child never joins an archived family" (409). */
export class FamilyArchivedError extends ChatStoreError {
  override name = "FamilyArchivedError";
  override readonly code = "family_archived";
  constructor(
    readonly rootChatId: string,
    readonly archivedChatId: string,
  ) {
    super(`chat ${archivedChatId} in the family of ${rootChatId} is archived`);
  }
}

/** "Unarchiving an individual child chat ... must fail while its parent is archived" (409). */
export class ParentArchivedError extends ChatStoreError {
  override name = "ParentArchivedError";
  override readonly code = "parent_archived";
  constructor(
    readonly chatId: string,
    readonly parentChatId: string,
  ) {
    super(`chat ${chatId} cannot be unarchived while its parent ${parentChatId} is archived`);
  }
}

/** Input a transition cannot accept in this state (a user message in CommitStep, no pending action...) (400). */
export class InvalidTransitionInputError extends ChatStoreError {
  override name = "InvalidTransitionInputError";
  override readonly code = "invalid_transition_input";
  constructor(
    readonly transition: string,
    readonly from: ClassifiedState,
    readonly reason: string,
  ) {
    super(`${transition} from ${from}: ${reason}`);
  }
}

/** CompleteRequiresAction: the results do not answer the pending dynamic tool calls one to one (400). */
export class ToolResultsMismatchError extends ChatStoreError {
  override name = "ToolResultsMismatchError";
  override readonly code = "tool_results_mismatch";
  constructor(readonly problems: { missing: string[]; unexpected: string[]; duplicate: string[] }) {
    const parts = [
      problems.missing.length ? `missing results for ${problems.missing.join(", ")}` : "",
      problems.unexpected.length ? `no pending call for ${problems.unexpected.join(", ")}` : "",
      problems.duplicate.length ? `duplicate results for ${problems.duplicate.join(", ")}` : "",
    ].filter(Boolean);
    super(`tool results do not match the pending tool calls: ${parts.join("; ")}`);
  }
}

/**
 * A bug, never a user error: a write did not do what the transition relies on (a promotion that
 * did not delete exactly one queue row, a landing the table does not list). The transaction rolls back.
 */
export class StoreInvariantError extends Error {
  override name = "StoreInvariantError";
}
