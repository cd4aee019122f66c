/**
 * Runs a response's local tool calls. Parallel calls run concurrently and their results come back
 * together, in call order, because they are committed in ONE CommitStep (spec: "Parallel tool call
 * results must be inserted in bulk after all parallel tool calls finish in a single CommitStep").
 */
import type { ToolCallPart, ToolResultPart } from "../chatstate/rules";
import { AbortedError } from "./aborted";
import type { LocalToolRegistry } from "./tools";

/**
 * Never rejects for a tool's own failure: an unknown tool or a throwing `execute` becomes an
 * is_error result. Rejects with AbortedError as soon as `abortSignal` fires; the tools still
 * running see the same signal and stop on their own (interrupts are best-effort).
 */
export async function executeLocalTools(
  calls: readonly ToolCallPart[],
  registry: LocalToolRegistry,
  options: { abortSignal: AbortSignal; traceCall?: TraceToolCall },
): Promise<ToolResultPart[]> {
  const { abortSignal, traceCall } = options;
  if (abortSignal.aborted) throw new AbortedError();
  const all = Promise.all(calls.map((call) => runOne(call, registry, abortSignal, traceCall)));
  let onAbort = (): void => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new AbortedError());
    abortSignal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([all, aborted]);
  } finally {
    abortSignal.removeEventListener("abort", onAbort);
  }
}

/**
 * Called when a tool starts running (an unknown tool never does); the returned function when it
 * ends, with the error only when the tool failed to execute.
 */
export type TraceToolCall = (call: ToolCallPart) => (error?: unknown) => void;

async function runOne(
  call: ToolCallPart,
  registry: LocalToolRegistry,
  abortSignal: AbortSignal,
  traceCall?: TraceToolCall,
): Promise<ToolResultPart> {
  const local = registry.get(call.tool_name);
  if (!local) return errorResult(call, `unknown tool: ${call.tool_name}`);
  const ended = traceCall?.(call);
  try {
    const result = await local.execute(call.args, { abortSignal, toolCallId: call.tool_call_id });
    ended?.();
    return { type: "tool-result", tool_call_id: call.tool_call_id, tool_name: call.tool_name, result: result ?? null, is_error: false };
  } catch (error) {
    ended?.(error);
    return errorResult(call, error instanceof Error ? error.message : String(error));
  }
}

/** The same `{error}` shape as the chat store's synthetic cancellation results. */
function errorResult(call: ToolCallPart, message: string): ToolResultPart {
  return { type: "tool-result", tool_call_id: call.tool_call_id, tool_name: call.tool_name, result: { error: message }, is_error: true };
}
