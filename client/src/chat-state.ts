/**
 * The chat as a client sees it, folded from stream events: pure, so the browser app, Node code
 * and tests share one reading of the events (docs/stream.md). Also the cursors a reconnect
 * resumes from: they only ever lag what the server holds, so a resume may re-send something
 * (folded idempotently here) but never skips anything.
 */
import type { ChatStreamEvent, PendingToolCall, StreamClosingError, StreamErrorPayload } from "../../src/wire/stream-events";
import type { RetryPayload } from "../../src/llm/retry";
import type { StreamPart, StreamProviderToolCall, StreamToolCallDelta } from "../../src/wire/stream-part";
import type { ChatMessage, ChatQueuedMessage, ChatStatus } from "./schemas";

export type { ChatStreamEvent, PendingToolCall, StreamClosingError, StreamErrorPayload, RetryPayload, StreamPart };

/**
 * The last event before the server closes the stream (1011, 4404): why it closes. `code` tells it
 * apart from the chat's own `error` event; the chat's state is unchanged.
 */
export function isStreamClosingEvent(event: ChatStreamEvent): event is { type: "error"; chat_id: string; error: StreamClosingError } {
  return event.type === "error" && "code" in event.error;
}

/** A `tool-call` part that is a fragment of the arguments (`args_delta`), not the complete call. */
const isToolCallDelta = (part: StreamPart): part is StreamToolCallDelta => part.type === "tool-call" && "args_delta" in part;
/** A complete `tool-call` the provider ran itself. */
const isProviderToolCall = (part: StreamPart): part is StreamProviderToolCall => part.type === "tool-call" && "provider_executed" in part;

/** One block of the streaming preview, in the order the model produced them. */
export type PreviewBlock =
  | { kind: "text"; text: string }
  | { kind: "reasoning"; text: string }
  | { kind: "tool-call"; toolCallId: string; toolName: string; argsText: string; args: unknown; complete: boolean }
  /** A tool the provider runs itself (web search): its call, then its result once it arrives. */
  | { kind: "provider-tool"; toolCallId: string; toolName: string; args: unknown; result?: unknown; isError?: boolean; complete: boolean }
  /** A web page the step drew on. */
  | { kind: "source"; url: string; title?: string };

/** The assistant step being generated: the parts of one episode (history_version, generation_attempt). */
export interface Preview {
  historyVersion: number;
  generationAttempt: number;
  lastSeq: number;
  blocks: PreviewBlock[];
  text: string;
  reasoning: string;
  /** What the server reported about the step, e.g. an MCP server it skipped (docs/mcp.md). */
  warnings: { code: string; message: string }[];
}

export interface ResumeCursors {
  history_version: number;
  queue_version: number;
  retry_state_version: number;
  generation_attempt: number;
  last_part_seq: number;
  status?: ChatStatus;
  error_history_version: number;
  action_required_history_version: number;
}

export interface ChatState {
  chatId: string;
  status: ChatStatus | null;
  /** The active history, oldest first. */
  messages: ChatMessage[];
  queue: ChatQueuedMessage[];
  preview: Preview | null;
  retry: RetryPayload | null;
  error: StreamErrorPayload | null;
  /** The dynamic tool calls waiting for the client's results. */
  actionRequired: PendingToolCall[] | null;
  /** The newest message revision or episode seen: the `history_version` to resume from. */
  historyVersion: number;
  errorHistoryVersion: number;
  actionRequiredHistoryVersion: number;
}

export function initialChatState(chatId: string): ChatState {
  return {
    chatId,
    status: null,
    messages: [],
    queue: [],
    preview: null,
    retry: null,
    error: null,
    actionRequired: null,
    historyVersion: 0,
    errorHistoryVersion: 0,
    actionRequiredHistoryVersion: 0,
  };
}

/** Folds one event into the state; returns a new object when anything changed (React-friendly). */
export function applyEvent(state: ChatState, event: ChatStreamEvent): ChatState {
  switch (event.type) {
    case "message": {
      const message = event.message as ChatMessage;
      const index = state.messages.findIndex((m) => m.id === message.id);
      if (index >= 0 && state.messages[index]!.revision > message.revision) return state;
      const messages = index >= 0 ? state.messages.with(index, message) : insertById(state.messages, message);
      // A committed assistant step newer than the preview's episode replaces the preview.
      const committed = message.role !== "user" && state.preview !== null && message.revision > state.preview.historyVersion;
      return {
        ...state,
        messages,
        preview: committed ? null : state.preview,
        retry: message.role === "user" ? state.retry : null,
        historyVersion: Math.max(state.historyVersion, message.revision),
      };
    }
    case "message_part": {
      const mp = event.message_part;
      let preview = state.preview;
      let retry = state.retry;
      if (preview === null || preview.historyVersion !== mp.history_version || preview.generationAttempt !== mp.generation_attempt) {
        preview = {
          historyVersion: mp.history_version,
          generationAttempt: mp.generation_attempt,
          lastSeq: 0,
          blocks: [],
          warnings: [],
          text: "",
          reasoning: "",
        };
        // A new attempt is streaming: the retry it waited for is over.
        retry = null;
      }
      if (mp.seq <= preview.lastSeq) return state;
      return {
        ...state,
        retry,
        preview: applyPart({ ...preview, lastSeq: mp.seq }, mp.part),
        historyVersion: Math.max(state.historyVersion, mp.history_version),
      };
    }
    case "status": {
      const status = event.status.status;
      return {
        ...state,
        status,
        preview: status === "running" || status === "interrupting" ? state.preview : null,
        retry: status === "running" ? state.retry : null,
        error: status === "error" ? state.error : null,
        actionRequired: status === "requires_action" ? state.actionRequired : null,
      };
    }
    case "error":
      // The server closing this stream says why; the chat itself is not in error.
      if (isStreamClosingEvent(event)) return state;
      return { ...state, error: event.error, retry: null, errorHistoryVersion: state.historyVersion };
    case "retry":
      return { ...state, retry: event.retry as RetryPayload, preview: null };
    case "queue_update":
      return { ...state, queue: event.queued_messages as ChatQueuedMessage[] };
    case "action_required":
      return { ...state, actionRequired: event.action_required.tool_calls, actionRequiredHistoryVersion: state.historyVersion };
    case "preview_reset":
      return { ...state, preview: null };
    case "history_reset":
      return { ...state, messages: [], preview: null };
  }
}

/** The stream query a reconnect resumes from (docs/stream.md "Resuming"). */
export function resumeCursors(state: ChatState): ResumeCursors {
  return {
    history_version: state.historyVersion,
    // Queue and retry versions are not carried by events: 0 makes the server re-send the queue and
    // the retry state, which replace what the client holds.
    queue_version: 0,
    retry_state_version: 0,
    generation_attempt: state.preview?.generationAttempt ?? 0,
    last_part_seq: state.preview && state.preview.historyVersion === state.historyVersion ? state.preview.lastSeq : 0,
    ...(state.status === null ? {} : { status: state.status }),
    error_history_version: state.errorHistoryVersion,
    action_required_history_version: state.actionRequiredHistoryVersion,
  };
}

/**
 * Folds one streamed part into the preview the way Coder's clients accumulate a live message:
 * `text` and `reasoning` deltas extend the last block of their kind, `tool-call` fragments
 * (`args_delta`) build a call that the complete `tool-call` (`args`) replaces, and a
 * provider-executed call is completed by its `tool-result`. A part type this client does not know
 * is skipped, as Coder's clients skip one.
 */
function applyPart(preview: Preview, part: StreamPart): Preview {
  const blocks = [...preview.blocks];
  const last = blocks.at(-1);
  switch (part.type) {
    case "text":
    case "reasoning": {
      const kind = part.type;
      if (last?.kind === kind) blocks[blocks.length - 1] = { kind, text: last.text + part.text };
      else blocks.push({ kind, text: part.text });
      return kind === "text"
        ? { ...preview, blocks, text: preview.text + part.text }
        : { ...preview, blocks, reasoning: preview.reasoning + part.text };
    }
    case "tool-call": {
      if (isProviderToolCall(part)) {
        return upsertProviderTool(preview, blocks, part.tool_call_id, () => ({
          kind: "provider-tool",
          toolCallId: part.tool_call_id,
          toolName: part.tool_name,
          args: part.args,
          complete: false,
        }));
      }
      const index = blocks.findIndex((b) => b.kind === "tool-call" && b.toolCallId === part.tool_call_id);
      const prior = index >= 0 ? (blocks[index] as Extract<PreviewBlock, { kind: "tool-call" }>) : undefined;
      const block: PreviewBlock = isToolCallDelta(part)
        ? {
            kind: "tool-call",
            toolCallId: part.tool_call_id,
            toolName: part.tool_name || (prior?.toolName ?? ""),
            argsText: (prior?.argsText ?? "") + part.args_delta,
            args: undefined,
            complete: false,
          }
        : {
            kind: "tool-call",
            toolCallId: part.tool_call_id,
            toolName: part.tool_name,
            argsText: JSON.stringify(part.args),
            args: part.args,
            complete: true,
          };
      if (index >= 0) blocks[index] = block;
      else blocks.push(block);
      return { ...preview, blocks };
    }
    case "tool-result":
      return upsertProviderTool(preview, blocks, part.tool_call_id, (prior) => ({
        kind: "provider-tool",
        toolCallId: part.tool_call_id,
        toolName: part.tool_name,
        args: prior?.args,
        result: part.result,
        isError: part.is_error,
        complete: true,
      }));
    case "source":
      if (blocks.some((b) => b.kind === "source" && b.url === part.url)) return preview;
      blocks.push(part.title === undefined ? { kind: "source", url: part.url } : { kind: "source", url: part.url, title: part.title });
      return { ...preview, blocks };
    case "warning":
      return { ...preview, warnings: [...preview.warnings, { code: part.code, message: part.message }] };
    default:
      return preview;
  }
}

type ProviderToolBlock = Extract<PreviewBlock, { kind: "provider-tool" }>;

function upsertProviderTool(
  preview: Preview,
  blocks: PreviewBlock[],
  toolCallId: string,
  next: (prior: ProviderToolBlock | undefined) => ProviderToolBlock,
): Preview {
  const index = blocks.findIndex((b) => b.kind === "provider-tool" && b.toolCallId === toolCallId);
  const block = next(index >= 0 ? (blocks[index] as ProviderToolBlock) : undefined);
  if (index >= 0) blocks[index] = block;
  else blocks.push(block);
  return { ...preview, blocks };
}

/** Ids are insertion order, so history is in id order (rows of one transaction share created_at). */
function insertById(messages: ChatMessage[], message: ChatMessage): ChatMessage[] {
  let i = messages.length;
  while (i > 0 && messages[i - 1]!.id > message.id) i--;
  return [...messages.slice(0, i), message, ...messages.slice(i)];
}
