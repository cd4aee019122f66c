/**
 * The lifecycle hooks a turn dispatches (spec "Lifecycle hooks"), all as work the chat already
 * admitted: pre_tool_use and post_tool_use around each local tool call, stop when the turn would
 * finish. A HookFailureError escapes to the generation task, which parks the chat in error.
 */
import type { TraceToolCall } from "../llm/local-tools";
import type { ToolCallPart, ToolResultPart } from "../chatstate/rules";
import type { NewMessage } from "../chats/history";
import type { ChatMessageRow, ChatRow } from "../db/schema/chats";
import { hookChat, textOf } from "../hooks/chat";
import { hookContextRows } from "../chats/hook-context-rows";
import { isDenied } from "../hooks/events";
import { stopContinuedThisTurn } from "../llm/decide";
import { executeLocalTools } from "../llm/local-tools";
import type { LocalToolRegistry } from "../llm/tools";
import type { TaskContext } from "./task-context";

export interface HookedToolResults {
  results: ToolResultPart[];
  /** Context rows the hooks returned, committed after the tool message. */
  context: NewMessage[];
}

/**
 * Runs the calls with pre_tool_use before each (deny: an error result and the tool never runs;
 * updated_input: the tool runs with it) and post_tool_use after each tool that ran.
 */
export async function runLocalToolsWithHooks(
  ctx: TaskContext,
  chat: ChatRow,
  calls: readonly ToolCallPart[],
  registry: LocalToolRegistry,
): Promise<HookedToolResults> {
  const { hooks } = ctx;
  if (!hooks.enabled)
    return { results: await executeLocalTools(calls, registry, { abortSignal: ctx.signal, traceCall: toolCallStage(ctx) }), context: [] };
  const who = hookChat(chat);
  const dispatch = (event: "pre_tool_use" | "post_tool_use", call: ToolCallPart, data: Record<string, unknown>) =>
    hooks.dispatch({ event, chat: who, data, trigger: [call.tool_call_id], kind: "admitted", signal: ctx.signal });

  const pre = await Promise.all(
    calls.map((call) => dispatch("pre_tool_use", call, { tool_call_id: call.tool_call_id, tool_name: call.tool_name, input: call.args })),
  );
  const runnable: ToolCallPart[] = [];
  calls.forEach((call, i) => {
    const response = pre[i] ?? {};
    if (!isDenied(response)) runnable.push(response.updated_input ? { ...call, args: response.updated_input } : call);
  });
  const ran = await executeLocalTools(runnable, registry, { abortSignal: ctx.signal, traceCall: toolCallStage(ctx) });
  const ranById = new Map(ran.map((result, i) => [result.tool_call_id, { result, call: runnable[i] as ToolCallPart }]));

  const post = await Promise.all(
    ran.map((result, i) =>
      dispatch("post_tool_use", runnable[i] as ToolCallPart, {
        tool_call_id: result.tool_call_id,
        tool_name: result.tool_name,
        input: (runnable[i] as ToolCallPart).args,
        result: result.result,
        is_error: result.is_error,
      }),
    ),
  );

  const results = calls.map((call, i): ToolResultPart => {
    const done = ranById.get(call.tool_call_id);
    if (done) return done.result;
    const reason = pre[i]?.reason;
    return {
      type: "tool-result",
      tool_call_id: call.tool_call_id,
      tool_name: call.tool_name,
      result: { error: reason ? `denied by policy: ${reason}` : "denied by policy" },
      is_error: true,
    };
  });
  const context = [...pre.flatMap((r) => hookContextRows("pre_tool_use", r)), ...post.flatMap((r) => hookContextRows("post_tool_use", r))];
  return { results, context };
}

/**
 * The stop hook, when the turn would finish. Its context rows continue the turn once (the decision
 * sees a stop row after the last response); once the turn was continued, the hook still fires, with
 * `stop_hook_active: true`, and whatever context it returns is not applied (no endless turn).
 */
export async function stopHook(
  ctx: TaskContext,
  chat: ChatRow,
  history: readonly ChatMessageRow[],
  reason: "complete" | "step_limit",
): Promise<NewMessage[]> {
  const { hooks } = ctx;
  if (!hooks.enabled) return [];
  const continued = stopContinuedThisTurn(history);
  const lastAssistant = history.findLast((row) => !row.deleted && row.role === "assistant" && !row.compressed);
  const response = await hooks.dispatch({
    event: "stop",
    chat: hookChat(chat),
    data: { reason, stop_hook_active: continued, last_assistant_text: lastAssistant ? textOf(lastAssistant.content) : null },
    trigger: [chat.historyVersion, reason],
    kind: "admitted",
    signal: ctx.signal,
  });
  return continued ? [] : hookContextRows("stop", response);
}

/**
 * pre_compact, before the summary is written. Its context guides the summary (spec: "context
 * returned before a compaction guides the compaction summary instead"): the text the summarizer
 * gets as a last instruction, or null.
 */
export async function preCompactHook(ctx: TaskContext, chat: ChatRow, source: "automatic" | "manual"): Promise<string | null> {
  const { hooks } = ctx;
  if (!hooks.enabled) return null;
  const response = await hooks.dispatch({
    event: "pre_compact",
    chat: hookChat(chat),
    data: { source },
    trigger: [chat.historyVersion, source],
    kind: "admitted",
    signal: ctx.signal,
  });
  const guidance = [response.model_context, response.user_context].filter((t) => t !== undefined && t !== "");
  return guidance.length > 0 ? guidance.join("\n\n") : null;
}

/**
 * post_compact, once the summary is written and before it is committed: the event's context rows
 * join the compaction's CommitStep (a task commits once; the step that follows would be fenced
 * out). A visible row leaves the history incomplete, so the turn continues (spec "Manual
 * compaction" step 4); a model-only row waits for the next model call.
 */
export async function postCompactHook(
  ctx: TaskContext,
  chat: ChatRow,
  source: "automatic" | "manual",
  summary: string,
): Promise<NewMessage[]> {
  const { hooks } = ctx;
  if (!hooks.enabled) return [];
  const response = await hooks.dispatch({
    event: "post_compact",
    chat: hookChat(chat),
    data: { source, summary },
    trigger: [chat.historyVersion, source],
    kind: "admitted",
    signal: ctx.signal,
  });
  return hookContextRows("post_compact", response);
}

/** The tool_call stage of one local tool that runs. */
function toolCallStage(ctx: TaskContext): TraceToolCall {
  return (call) => {
    const stage = ctx.trace.stage("tool_call", { attributes: { tool_name: call.tool_name } });
    return (error) => stage.end(error === undefined ? {} : { error });
  };
}
