/**
 * The per-transition rules the chat store applies inside a transition's transaction
 * ("Miscellaneous transition rules", "Invalid states", titles, manual compaction). Pure: time comes in as `now`.
 */
import type { ChatStatus, ClassifiedState, ExecutionState } from "./states";
import { ERROR_STATES, REQUIRES_ACTION_STATES, STATE_TABLE } from "./states";
import type { ExecutionTransitionName, OwnershipTransitionName, TransitionName, VariantOf } from "./transitions";

function isOneOf<S extends string>(states: readonly S[], state: string): state is S {
  return (states as readonly string[]).includes(state);
}

/** The chats columns a landing state dictates. */
export function columnsFor(state: ExecutionState): { status: ChatStatus; archived: boolean } {
  const { status, archived } = STATE_TABLE[state];
  return { status, archived };
}

/**
 * "Any transition leaving E0 or E1 (except SetArchived(true)) should clear the last_error field."
 * Leaving means leaving the error status: E1 --> E0 and E1 --> E1 (DeleteQueuedMessage) stay in
 * error, so they keep the error they are showing.
 */
export function leavesError(from: ClassifiedState, to: ExecutionState, transition: ExecutionTransitionName): boolean {
  if (transition === "SetArchived") return false;
  return isOneOf(ERROR_STATES, from) && !isOneOf(ERROR_STATES, to);
}

/**
 * "Any transition that's not CompleteRequiresAction which supports A0 or A1 as input states, and lands
 * in output states different from A0 and A1, must insert synthetic, cancellation tool-call results."
 */
export function mustCancelPendingToolCalls(transition: ExecutionTransitionName, from: ClassifiedState, to: ExecutionState): boolean {
  if (transition === "CompleteRequiresAction") return false;
  return isOneOf(REQUIRES_ACTION_STATES, from) && !isOneOf(REQUIRES_ACTION_STATES, to);
}

export interface ToolCallPart {
  readonly type: "tool-call";
  readonly tool_call_id: string;
  readonly tool_name: string;
  readonly args: unknown;
}

export interface ToolResultPart {
  readonly type: "tool-result";
  readonly tool_call_id: string;
  readonly tool_name: string;
  readonly result: unknown;
  readonly is_error: boolean;
}

/** Any message shape whose content is a list of typed parts; only tool parts are read. */
export interface MessageWithParts {
  readonly content: readonly { readonly type: string }[];
}

function isToolCall(part: { readonly type: string }): part is ToolCallPart {
  return part.type === "tool-call";
}

function isToolResult(part: { readonly type: string }): part is ToolResultPart {
  return part.type === "tool-result";
}

/**
 * Tool calls in `activeHistory` (non-deleted messages, oldest first) that no later tool-result answers.
 * These are what "answer outstanding tool calls in active history before inserting the user message"
 * and the cancellation rule close. Returned in call order.
 */
export function pendingToolCalls(activeHistory: readonly MessageWithParts[]): ToolCallPart[] {
  const pending = new Map<string, ToolCallPart>();
  for (const message of activeHistory) {
    for (const part of message.content) {
      if (isToolCall(part)) pending.set(part.tool_call_id, part);
      else if (isToolResult(part)) pending.delete(part.tool_call_id);
    }
  }
  return [...pending.values()];
}

/** The tool-result parts that close `pending` without running them. */
export function syntheticCancellationResults(pending: readonly ToolCallPart[], reason: string): ToolResultPart[] {
  return pending.map((call) => ({
    type: "tool-result",
    tool_call_id: call.tool_call_id,
    tool_name: call.tool_name,
    result: { error: `tool call cancelled: ${reason}` },
    is_error: true,
  }));
}

/** Lowest rank first: "in the order fallback, generated, user". */
export const TITLE_SOURCES = ["fallback", "generated", "user"] as const;
export type TitleSource = (typeof TITLE_SOURCES)[number];

export function rankTitleSource(source: TitleSource): number {
  return TITLE_SOURCES.indexOf(source);
}

/** "A title write applies only when the current source ranks the same as or lower than the incoming one." */
export function titleWriteApplies(current: TitleSource, incoming: TitleSource): boolean {
  return rankTitleSource(current) <= rankTitleSource(incoming);
}

/**
 * compaction_requested_at is one-shot: "transitions that keep an active turn alive (Acquire, Abandon,
 * SetArchived, queueing a message on a busy chat) carry it forward", every other one clears it.
 * The worker's in-turn bookkeeping (RecordGenerationAttempt, RecordRetryState, CommitStep) and
 * DeleteQueuedMessage also keep the turn alive, so they carry it too: a compaction attempt that is
 * retried, or preceded by committing pending tool results, must still see its request. The compaction
 * CommitStep clears the marker itself as part of its payload ("consumes the request").
 * SendMessage(queue) on an idle chat inserts rather than queues, but idle states never hold a marker:
 * every transition into W, E0 and E1 clears it.
 */
const CARRIES_COMPACTION_REQUEST: readonly TransitionName[] = [
  "Acquire",
  "Abandon",
  "SetArchived",
  "RecordGenerationAttempt",
  "RecordRetryState",
  "CommitStep",
  "DeleteQueuedMessage",
];

export function keepsCompactionRequest(transition: OwnershipTransitionName): boolean;
export function keepsCompactionRequest<T extends ExecutionTransitionName>(transition: T, variant?: VariantOf<T>): boolean;
export function keepsCompactionRequest(transition: TransitionName, variant?: string): boolean {
  if (transition === "SendMessage") {
    if (variant === undefined) {
      throw new TypeError("keepsCompactionRequest(SendMessage) needs its busy_behavior variant");
    }
    return variant === "queue";
  }
  return CARRIES_COMPACTION_REQUEST.includes(transition);
}

/** "requires_action_deadline_at, which is a timestamp 5 minutes in the future". */
export const REQUIRES_ACTION_TIMEOUT_MS = 5 * 60 * 1000;

export function requiresActionDeadline(now: Date): Date {
  return new Date(now.getTime() + REQUIRES_ACTION_TIMEOUT_MS);
}

/**
 * requires_action_deadline_at after a transition: set by EnterRequiresAction, kept while the chat stays
 * in A0/A1 (a message queued behind the action), and null everywhere else.
 */
export function nextRequiresActionDeadline(
  transition: ExecutionTransitionName,
  to: ExecutionState,
  current: Date | null,
  now: Date,
): Date | null {
  if (!isOneOf(REQUIRES_ACTION_STATES, to)) return null;
  return transition === "EnterRequiresAction" ? requiresActionDeadline(now) : current;
}

/**
 * ReconcileInvalidState's last_error: "an error message describing the chat was in an invalid state and
 * a new message should be submitted or the message history should be edited to continue".
 */
export const INVALID_STATE_LAST_ERROR =
  "This chat was in an invalid state and has been reset. Send a new message or edit the message history to continue.";
