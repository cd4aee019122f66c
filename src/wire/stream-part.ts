/**
 * What a model step reports while it streams: the small, stable shape the part buffer stores and
 * the parts stream carries (`message_part.part`). Snake_case like every wire shape.
 *
 * The shapes are Coder's `ChatMessagePart` as its clients accumulate a live message (docs/stream.md,
 * "Streamed parts"): `text` and `reasoning` carry a delta in `text`; a tool call streams as
 * `tool-call` fragments (`args_delta`, a piece of the JSON arguments, no `args`) and ends with one
 * complete `tool-call` (`args`, the parsed arguments) that replaces them.
 */
import type { WireProviderToolCall, WireProviderToolResult } from "./message-part";

/** The new text only: clients append it to the text block they are building. */
export interface StreamTextPart {
  type: "text";
  text: string;
}

/** The new reasoning only, appended like text. */
export interface StreamReasoningPart {
  type: "reasoning";
  text: string;
}

/** A fragment of a tool call's JSON arguments while the model writes them. Never empty. */
export interface StreamToolCallDelta {
  type: "tool-call";
  tool_call_id: string;
  tool_name: string;
  args_delta: string;
}

/** The complete call, arguments parsed: replaces the fragments of the same `tool_call_id`. */
export interface StreamToolCall {
  type: "tool-call";
  tool_call_id: string;
  tool_name: string;
  args: unknown;
}

/**
 * A tool the provider ran itself (web search), and its result: the same shapes a committed message
 * carries (./message-part.ts), the opaque replay data left out of the result.
 */
export type StreamProviderToolCall = WireProviderToolCall;
export type StreamProviderToolResult = WireProviderToolResult;

/** A web page the response drew on, once per URL per step. */
export interface StreamSourcePart {
  type: "source";
  url: string;
  title?: string;
}

/**
 * Not from the model: something the client should know about the step, e.g. an MCP server that
 * could not be reached and was skipped (`code: "mcp_connect_failed"`). Live only, like every part.
 * Ours alone: Coder has no such part, and its clients skip a part type they do not render.
 */
export interface StreamWarningPart {
  type: "warning";
  code: string;
  message: string;
}

export type StreamPart =
  | StreamTextPart
  | StreamReasoningPart
  | StreamToolCallDelta
  | StreamToolCall
  | StreamProviderToolCall
  | StreamProviderToolResult
  | StreamSourcePart
  | StreamWarningPart;

/** A `tool-call` part that is a fragment of the arguments, not the complete call. */
export function isToolCallDelta(part: StreamPart): part is StreamToolCallDelta {
  return part.type === "tool-call" && "args_delta" in part;
}

/** A complete `tool-call` part the provider ran itself. */
export function isProviderToolCall(part: StreamPart): part is StreamProviderToolCall {
  return part.type === "tool-call" && "provider_executed" in part;
}
