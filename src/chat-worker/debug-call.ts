/**
 * A model call with its debug capture (src/debug-runs): the capture is told how the call ended (what
 * it produced, or its error) and saved for the recorder's next flush, which the task calls once the
 * step's commit is done. Without a capture the call runs as it is.
 */
import type { DebugCallEnd, DebugCapture } from "../debug-runs/capture";
import type { ChatRow } from "../db/schema/chats";
import { messageUsage, type StepOutcome } from "../llm/step";
import type { SummarizeOutcome } from "../llm/compaction/summarize";
import type { RunnerDeps } from "./task-context";

export async function withDebugRun<T>(
  deps: Pick<RunnerDeps, "debugRuns">,
  capture: DebugCapture | undefined,
  chat: Pick<ChatRow, "organizationId" | "mcpServerIds">,
  call: () => Promise<T>,
  ended: (value: T) => DebugCallEnd,
): Promise<T> {
  if (!capture || !deps.debugRuns) return call();
  try {
    const value = await call();
    capture.end(ended(value));
    return value;
  } catch (err) {
    capture.end({ error: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    deps.debugRuns.save(capture, chat);
  }
}

/** A generation step's end: its parts, usage and finish reason. */
export function stepEnd(outcome: StepOutcome): DebugCallEnd {
  return outcome.kind === "response"
    ? { finishReason: outcome.finishReason, usage: messageUsage(outcome.usage), parts: outcome.assistant }
    : { finishReason: "aborted", parts: outcome.assistant };
}

/** A compaction summary's end: the summary text and its prompt's size. */
export function summaryEnd(outcome: SummarizeOutcome): DebugCallEnd {
  return outcome.kind === "summary"
    ? { finishReason: "stop", usage: { input_tokens: outcome.inputTokens }, parts: [{ type: "text", text: outcome.text }] }
    : { finishReason: "aborted" };
}
