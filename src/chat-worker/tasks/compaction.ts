/**
 * Compaction inside the generation task (spec "Manual compaction", "Compaction model selection"):
 * - before a model call, the automatic gate (previous step's prompt usage against the binding
 *   trigger) may compact instead, or end the turn with the "still over limit" error;
 * - a manual request (compaction_requested_at) compacts whatever the usage.
 * A compaction writes a non-streaming summary with its own retry budget, streams a "Summarizing…"
 * progress part, and commits the boundary triplet plus the replayed pending user messages in ONE
 * CommitStep (consuming a manual request). The next decision pass carries on from there.
 */
import { failTurn } from "../fail-turn";
import { transportFor } from "../../llm/transport";
import { stageModel } from "../task-tracing";
import { toolStepOf } from "../../tools/chat-tools";
import type { ChatMessageRow, ChatRow, LastErrorDetail } from "../../db/schema/chats";
import { NoDefaultModelConfigError } from "../../model-configs/errors";
import type { ResolvedModelConfig } from "../../model-configs/resolve";
import { commitInStage } from "../commit-in-stage";
import { recordRetryState } from "../../chats/transitions/generation-attempts";
import { CHAT_SUMMARIZED_TOOL, type CompactionSource, compactionMessages, type SummaryRecord } from "../../llm/compaction/boundary";
import { automaticCompactionGate, latestPromptTokens } from "../../llm/compaction/gate";
import { summarize, summaryMaxOutputTokens } from "../../llm/compaction/summarize";
import { summaryInput } from "../../llm/compaction/summary-prompt";
import { recordedTrigger } from "../../llm/compaction/trigger";
import { isModelCallError, type ModelCallError } from "../../llm/model-call-error";
import type { Attribution } from "../../llm/attribution";
import { retryPayload } from "../../llm/retry";
import { modelTools } from "../../llm/tools";
import { episodeKey } from "../../part-buffer/part-buffer";
import { logger } from "../../log/log";
import { attributedModel } from "../attributed-model";
import { summaryEnd, withDebugRun } from "../debug-call";
import { attributionFor } from "../attribution";
import { type CompactionSetup, compactionSetup } from "../compaction-setup";
import { attemptForCall, type ChatSnapshot, fencedUpdate } from "../fenced-db";
import { modelForTurn } from "../model-for-turn";
import { preparationFailureMessage } from "../prepare-generation";
import { postCompactHook, preCompactHook } from "../hook-calls";
import type { TaskContext } from "../task-context";

export const SUMMARIZING_TEXT = "Summarizing…";

/** The step's read; its recorded attempt, when it has one, is the compaction call's (attemptForCall). */
type Snapshot = ChatSnapshot;

/** The chat model, or null after ending the turn because none is configured. */
async function chatModelOrFinish(ctx: TaskContext, snapshot: Snapshot): Promise<ResolvedModelConfig | null> {
  try {
    return await modelForTurn(ctx.db, snapshot.chat, snapshot.models);
  } catch (err) {
    if (!(err instanceof NoDefaultModelConfigError)) throw err;
    await failTurn(ctx, { error: "No model is configured for this organization." });
    return null;
  }
}

/**
 * What the gate before a model call did: handled the step (compacted, or ended the turn with the
 * "still over limit" error), or left it to the model call, with the chat model when it resolved
 * one (the call's preparation then need not read it again).
 */
export type GateOutcome = { readonly handled: true } | { readonly handled: false; readonly chatModel?: ResolvedModelConfig };

/** Run before a model call: the automatic compaction gate. */
export async function compactBeforeModelCall(ctx: TaskContext, snapshot: Snapshot): Promise<GateOutcome> {
  // No step since the newest boundary reported a prompt size: nothing can fire, skip the reads.
  if (latestPromptTokens(snapshot.history) === null) return { handled: false };
  let chatModel: ResolvedModelConfig;
  try {
    chatModel = await modelForTurn(ctx.db, snapshot.chat, snapshot.models);
  } catch (err) {
    // The model call reports a missing model itself.
    if (err instanceof NoDefaultModelConfigError) return { handled: false };
    throw err;
  }
  const setup = await compactionSetup(ctx.db, snapshot.chat, chatModel, snapshot.models?.compaction);
  const gate = automaticCompactionGate(snapshot.history, setup.triggers);
  switch (gate.kind) {
    case "none":
      return { handled: false, chatModel };
    case "still_over_limit": {
      const summarizer = setup.override ?? setup.chatModel;
      logger.warn("compaction_still_over_limit", {
        chat_id: snapshot.chat.id,
        prompt_tokens: gate.promptTokens,
        trigger: gate.trigger.kind,
        token_point: gate.trigger.tokenPoint,
        provider: summarizer.provider.type,
        model: summarizer.config.model,
      });
      const detail: LastErrorDetail = {
        kind: "context_still_over_limit",
        provider: summarizer.provider.type,
        retryable: false,
        status_code: null,
        detail: `${gate.trigger.kind} trigger at ${gate.trigger.tokenPoint} tokens; prompt ${gate.promptTokens} tokens`,
      };
      await failTurn(ctx, { error: gate.message, detail });
      return { handled: true };
    }
    case "compact":
      await compact(ctx, snapshot, setup, "automatic");
      return { handled: true };
  }
}

/** The decision chose a manual compaction (compaction_requested_at set, something to compact). */
export async function compactOnRequest(ctx: TaskContext, snapshot: Snapshot): Promise<void> {
  const chatModel = await chatModelOrFinish(ctx, snapshot);
  if (chatModel === null) return;
  await compact(ctx, snapshot, await compactionSetup(ctx.db, snapshot.chat, chatModel, snapshot.models?.compaction), "manual");
}

/** A compaction pass as its own stage, carrying the model that runs the summary. */
async function compact(ctx: TaskContext, snapshot: Snapshot, setup: CompactionSetup, source: CompactionSource): Promise<void> {
  const summarizer = setup.override ?? setup.chatModel;
  const transport = transportFor(summarizer.provider, summarizer.config) ?? summarizer.provider.type;
  const stage = ctx.trace.nest(ctx.trace.stage("compaction", { model: stageModel(summarizer, transport, null), attributes: { source } }));
  try {
    await compactPass(ctx, snapshot, setup, source);
  } catch (error) {
    ctx.trace.leave(stage, { error });
    throw error;
  }
  ctx.trace.leave(stage);
}

async function compactPass(ctx: TaskContext, snapshot: Snapshot, setup: CompactionSetup, source: CompactionSource): Promise<void> {
  const { chat, history } = snapshot;
  const trigger = recordedTrigger(setup.triggers);
  const record: SummaryRecord = {
    source,
    threshold_percent: trigger?.thresholdPercent ?? null,
    trigger_context_limit_tokens: trigger?.contextLimitTokens ?? null,
    context_limit_tokens: setup.chatModel.config.contextLimit,
  };
  const summarizer = setup.override ?? setup.chatModel;
  const toolCallId = `chat_summarized_${crypto.randomUUID()}`;

  const attempt = await attemptForCall(ctx.store, ctx.fence, snapshot);
  const key = episodeKey(chat.id, chat.historyVersion, attempt);
  ctx.parts.createEpisode(key);
  try {
    try {
      ctx.parts.startModelInvocation(key);
      ctx.parts.addPart(key, {
        type: "tool-call",
        tool_call_id: toolCallId,
        tool_name: CHAT_SUMMARIZED_TOOL,
        args: { ...record, status: SUMMARIZING_TEXT },
      });
    } catch {
      // Best-effort, like every part.
    }
    const reSanitize = summarizer.provider.type !== setup.chatModel.provider.type;
    const input = summaryInput(chat, history, { reSanitize });
    const { pendingUsers } = input;
    const guidance = await preCompactHook(ctx, chat, source);
    const prompt = guidance
      ? {
          ...input.prompt,
          messages: [
            ...input.prompt.messages,
            { role: "user" as const, content: [{ type: "text" as const, text: `Guidance for this summary:\n${guidance}` }] },
          ],
        }
      : input.prompt;
    // The owner's attribution, like every call the chat makes; an owner who may not generate ends the turn.
    let attribution: Attribution;
    try {
      attribution = await attributionFor(ctx, chat);
    } catch (err) {
      const error = preparationFailureMessage(err);
      if (error === undefined) throw err;
      await failTurn(ctx, { error });
      return;
    }
    // Built here, not at preparation: a broken override fails only the turns that compact.
    // Its debug run names the summarizer's provider and model, the override's when there is one.
    const debug = ctx.debugRuns?.call(chat, "compaction", ctx.trace.traceId);
    const model = await attributedModel(summarizer, attribution, ctx.config.CHAT_SECRETS_KEYS, { fetch: ctx.fetch, debug });
    const outcome = await withDebugRun(
      ctx,
      model.debug,
      chat,
      async () =>
        summarize({
          model: model.client.model,
          prompt,
          // The summarizer config's default effort, converted for its transport, with the attribution id.
          providerOptions: model.providerOptions(),
          maxOutputTokens: summaryMaxOutputTokens(summarizer.config.contextLimit),
          // A flattened prompt has no tool history left to define.
          tools: reSanitize ? undefined : await offeredTools(ctx, chat, history),
          abortSignal: ctx.signal,
          maxRetries: ctx.config.CHAT_MAX_GENERATION_RETRIES,
          retryInitialMs: ctx.config.CHAT_RETRY_INITIAL_DELAY_MS,
          sleep: ctx.sleep,
          onRetry: async (error, retry, delay) => {
            const payload = retryPayload(error, retry, delay, ctx.now());
            await fencedUpdate(ctx.store, ctx.fence, (tx) => recordRetryState(tx, { retryState: payload }));
          },
        }),
      summaryEnd,
    );
    if (outcome.kind === "aborted") return;
    const messages = compactionMessages({
      toolCallId,
      summary: outcome.text,
      record,
      pendingUsers,
      modelConfigId: setup.chatModel.config.id,
      summarizer: { provider: summarizer.provider.type, model: summarizer.config.model, inputTokens: outcome.inputTokens },
    });
    messages.push(...(await postCompactHook(ctx, chat, source, outcome.text)));
    await commitInStage(ctx, { messages, consumeCompactionRequest: source === "manual" });
    logger.info("chat_compacted", {
      chat_id: chat.id,
      source,
      provider: summarizer.provider.type,
      model: summarizer.config.model,
      summary_prompt_tokens: outcome.inputTokens,
      replayed_user_messages: pendingUsers.length,
    });
  } catch (err) {
    if (!isModelCallError(err)) throw err;
    await failTurn(ctx, { error: compactionFailure(err), detail: errorDetail(err) });
  } finally {
    ctx.parts.closeEpisode(key);
    ctx.debugRuns?.flush();
  }
}

function compactionFailure(err: ModelCallError): string {
  const why = err.statusCode === undefined ? err.message : `${err.provider} answered ${err.statusCode}: ${err.message}`;
  return `Compaction failed: ${why}`;
}

function errorDetail(err: ModelCallError): LastErrorDetail {
  return { kind: err.kind, provider: err.provider, retryable: err.retryable, status_code: err.statusCode ?? null, detail: "compaction" };
}

/** The tools the chat's model is offered at this step, for a summary of a history that calls them. */
async function offeredTools(ctx: TaskContext, chat: ChatRow, history: readonly ChatMessageRow[]) {
  const tools = await ctx.toolsFor(chat, toolStepOf(history, ctx.decisions));
  return modelTools(chat, tools.registry, tools.hidden).set;
}
