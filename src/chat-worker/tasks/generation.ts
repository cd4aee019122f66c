/**
 * The generation task (spec "Generation goroutine"): one step of the turn, then exit. It reads the
 * chat under its fence, decides the next step from history, and applies exactly one of CommitStep,
 * FinishTurn, EnterRequiresAction or FinishError. A committed step moves history_version, which
 * makes the runner spawn the next step's task.
 *
 * A model step whose commit leaves the turn nothing more to do (no local tool call, no compaction
 * requested, no stop hook to ask) ends the turn in the same transaction: CommitStep, then the
 * FinishTurn or EnterRequiresAction the next task would have applied after reading it back, and
 * the Abandon that would follow a turn that leaves the chat idle (release-when-idle.ts).
 *
 * Model calls: RecordGenerationAttempt before every call, one part-buffer episode per attempt,
 * retryable failures recorded with RecordRetryState then retried after a backoff (1 s doubling to
 * 60 s) until generation_attempt exceeds CHAT_MAX_GENERATION_RETRIES, then FinishError.
 */
import { failTurn } from "../fail-turn";
import { stepEnd, withDebugRun } from "../debug-call";
import { releaseWhenIdle } from "../release-when-idle";
import { commitInStage } from "../commit-in-stage";
import type { NewMessage } from "../../chats/history";
import { finishTurn } from "../../chats/transitions/finish-turn";
import { recordRetryState } from "../../chats/transitions/generation-attempts";
import { enterRequiresAction } from "../../chats/transitions/requires-action";
import { decideNextStep } from "../../llm/decide";
import { HookFailureError } from "../../hooks/errors";
import { type ModelCallError, isModelCallError } from "../../llm/model-call-error";
import { retryDelayMs, retryPayload, shouldFinishError } from "../../llm/retry";
import { messageUsage, runModelStep, type StepOutcome } from "../../llm/step";
import { modelTools } from "../../llm/tools";
import { pricingOf, stepCostUsd } from "../../model-configs/pricing";
import { withProviderTools } from "../../llm/provider-tools";
import { type EpisodeKey, episodeKey } from "../../part-buffer/part-buffer";
import { attemptForCall, type ChatSnapshot, fencedRead, fencedUpdate } from "../fenced-db";
import { type PreparedGeneration, preparationFailureMessage, prepareGeneration } from "../prepare-generation";
import { runLocalToolsWithHooks, stopHook } from "../hook-calls";
import type { ChatTx } from "../../chats/chat-tx";
import type { Promotion } from "../../chats/queue";
import type { TaskContext } from "../task-context";
import { compactBeforeModelCall, compactOnRequest } from "./compaction";
import type { ResolvedModelConfig } from "../../model-configs/resolve";
import type { ChatMessageRow, ChatRow } from "../../db/schema/chats";
import { type HistoryRow, rowsAsWritten } from "../../llm/active-history";
import { toolStepOf } from "../../tools/chat-tools";
import { logger } from "../../log/log";
import type { Stage } from "../../observability/stage-tracing";
import { turnTrigger } from "../task-tracing";
import { StreamStages } from "../stream-stages";
import { prefetchFor } from "../../chats/lock-prefetch";

/** A provider that sends nothing for this long fails the attempt as a retryable timeout. */
export const MODEL_IDLE_TIMEOUT_MS = 60_000;

export async function generationTask(ctx: TaskContext): Promise<void> {
  // One generation_step per task, from loading state to its transition; it joins the turn once
  // the read names the trigger. The turn is settled after the step's own stage ended.
  const generationStep = ctx.trace.nest(ctx.trace.stage("generation_step"));
  try {
    try {
      await step(ctx, generationStep);
    } catch (err) {
      // Hooks fail closed: the step stops and the chat shows why; sending a message (or retrying
      // from error) runs the turn again once the consumer answers.
      if (!(err instanceof HookFailureError)) throw err;
      const detail = { kind: err.code, provider: null, retryable: true, status_code: null, detail: err.detail };
      await failTurn(ctx, { error: err.message, detail });
    }
    ctx.trace.leave(generationStep);
  } catch (error) {
    ctx.trace.leave(generationStep, { error });
    throw error;
  } finally {
    ctx.trace.settle();
  }
}

async function step(ctx: TaskContext, generationStep: Stage): Promise<void> {
  const read = ctx.startingRead.take(ctx.fence) ?? (await fencedRead(ctx.store, ctx.fence));
  try {
    await stepFrom(ctx, generationStep, read);
  } finally {
    // An attempt the commit recorded for a model call that this step did not make (it compacted,
    // failed the turn, or threw) ends with no part, so a stream loop that follows it stops.
    const unused = read.recordedAttempt;
    if (unused !== undefined) ctx.parts.closeEpisode(episodeKey(read.chat.id, read.chat.historyVersion, unused));
  }
}

async function stepFrom(ctx: TaskContext, generationStep: Stage, read: ChatSnapshot): Promise<void> {
  const { chat, history } = read;
  ctx.trace.ensure(turnTrigger(chat, history));
  const next = decideNextStep({ chat, history, maxStepsPerTurn: ctx.config.CHAT_MAX_STEPS_PER_TURN });
  generationStep.set({ generation_action: next.kind });
  switch (next.kind) {
    case "finish_turn": {
      const context = await stopHook(ctx, chat, history, next.reason);
      if (context.length > 0) {
        // The stop hook continues the turn once: the next decision sees its rows and calls the model.
        await commitInStage(ctx, { messages: context });
        return;
      }
      const finished = await fencedUpdate(
        ctx.store,
        ctx.fence,
        async (tx) => {
          const value = await finishTurn(tx);
          await releaseWhenIdle(tx);
          return value;
        },
        prefetchFor(finishTurn, undefined),
      );
      turnEnded(ctx, { kind: "finished", promoted: finished.value.promoted }, finished.chat, history);
      return;
    }
    case "enter_requires_action":
      await fencedUpdate(ctx.store, ctx.fence, (tx) => enterRequiresAction(tx), prefetchFor(enterRequiresAction, undefined));
      turnEnded(ctx, { kind: "requires_action" }, chat, history);
      return;
    case "run_local_tools": {
      // The same turn as the step that made the calls: its MCP connections are reused.
      const { registry } = await ctx.toolsFor(chat, toolStepOf(history, ctx.decisions));
      const { results, context } = await runLocalToolsWithHooks(ctx, chat, next.calls, registry);
      // Parallel results (and the hooks' context) in one CommitStep: history_version moves once.
      await commitInStage(ctx, { messages: [{ role: "tool", content: results }, ...context] }, undefined, { chat, history });
      return;
    }
    case "compact":
      await compactOnRequest(ctx, read);
      return;
    case "call_model": {
      // The automatic compaction gate may compact (or end the turn) instead of calling the model.
      const gate = await compactBeforeModelCall(ctx, read);
      if (gate.handled) return;
      await callModel(ctx, read, gate.chatModel);
      return;
    }
  }
}

/**
 * `read` is the step's own fenced read, nothing having been written since, and `chatModel` the
 * model the compaction gate resolved from it: the first attempt uses both (RecordGenerationAttempt
 * rechecks the fence under the lock anyway), and the attempt `read`'s commit recorded for this
 * runner when there is one (its fence was checked on that committed row; a commit since then
 * reaches the runner, which cancels this task); a retry reads and resolves again.
 */
async function callModel(ctx: TaskContext, read: ChatSnapshot, chatModel: ResolvedModelConfig | undefined): Promise<void> {
  for (let first = true; ; first = false) {
    const current = first ? read : await fencedRead(ctx.store, ctx.fence);
    const { chat, history, models } = current;
    const resolved = first ? chatModel : undefined;
    let prepared: PreparedGeneration;
    const prepare = ctx.trace.nest(ctx.trace.stage("prepare"));
    try {
      prepared = await prepareGeneration(ctx, { chat, history, ...(models ? { models } : {}) }, resolved);
      prepare.setModel(prepared.model);
      ctx.trace.leave(prepare);
    } catch (err) {
      ctx.trace.leave(prepare, { error: err });
      // A provider row that cannot make a call (no key, no base URL) fails here, before any attempt.
      if (isModelCallError(err)) return finishWithModelError(ctx, err);
      const error = preparationFailureMessage(err);
      if (error === undefined) throw err;
      await failTurn(ctx, { error });
      return;
    }
    const attempt = await attemptForCall(ctx.store, ctx.fence, current);
    const key = episodeKey(chat.id, chat.historyVersion, attempt);
    ctx.parts.createEpisode(key);
    // What the client should know about this step's tools (an MCP server skipped), first in the episode.
    for (const warning of prepared.tools.warnings) {
      logger.warn("tool_warning", { chat_id: chat.id, code: warning.code, message: warning.message });
      ctx.parts.addPart(key, { type: "warning", code: warning.code, message: warning.message });
    }
    try {
      ctx.parts.startModelInvocation(key);
      const outcome = await withDebugRun(ctx, prepared.debug, chat, () => streamModelStep(ctx, key, prepared, chat), stepEnd);
      if (outcome.kind === "aborted") return;
      const usage = messageUsage(outcome.usage);
      // Priced now, with the prices the step ran under: a later price change leaves it as it is.
      const costUsd = stepCostUsd(usage, pricingOf(prepared.config));
      const messages: NewMessage[] = [{ role: "assistant", content: outcome.assistant, modelConfigId: prepared.config.id, usage, costUsd }];
      if (outcome.toolErrors.length > 0) messages.push({ role: "tool", content: outcome.toolErrors });
      const committed = await commitInStage(
        ctx,
        { messages },
        (tx, written) => endTurnInCommit(ctx, tx, [...history, ...rowsAsWritten(history, written)]),
        { chat, history },
      );
      if (committed.value) turnEnded(ctx, committed.value, committed.chat, [...history, ...committed.inserted], prepared.resolved);
      return;
    } catch (err) {
      if (!isModelCallError(err)) throw err;
      if (!err.retryable || shouldFinishError(attempt, ctx.config.CHAT_MAX_GENERATION_RETRIES)) return finishWithModelError(ctx, err);
      const delay = retryDelayMs(attempt, ctx.config.CHAT_RETRY_INITIAL_DELAY_MS);
      const payload = retryPayload(err, attempt, delay, ctx.now());
      await fencedUpdate(ctx.store, ctx.fence, (tx) => recordRetryState(tx, { retryState: payload }));
      const backoff = ctx.trace.nest(ctx.trace.stage("retry_backoff", { attributes: { generation_attempt: attempt } }));
      try {
        await ctx.sleep(delay, ctx.signal);
      } catch (error) {
        ctx.trace.leave(backoff, { error });
        throw error;
      }
      ctx.trace.leave(backoff);
    } finally {
      ctx.parts.closeEpisode(key);
      // The step's commit is done (or failed): its debug runs are written now, not beside it.
      ctx.debugRuns?.flush();
    }
  }
}

/** One model call, streamed part by part to the episode `key`, inside its `stream` stage (stream-stages.ts). */
async function streamModelStep(ctx: TaskContext, key: EpisodeKey, prepared: PreparedGeneration, chat: ChatRow): Promise<StepOutcome> {
  const stream = new StreamStages(ctx, prepared.model);
  ctx.trace.nest(stream.stage);
  try {
    const outcome = await runModelStep({
      model: prepared.client.model,
      prompt: prepared.prompt,
      tools: withProviderTools(modelTools(chat, prepared.tools.registry, prepared.tools.hidden), prepared.providerTools),
      abortSignal: ctx.signal,
      idleTimeoutMs: MODEL_IDLE_TIMEOUT_MS,
      providerOptions: prepared.providerOptions,
      onPart: (part) => {
        stream.part(part);
        ctx.parts.addPart(key, part);
      },
    });
    stream.close();
    ctx.trace.leave(stream.stage);
    return outcome;
  } catch (error) {
    stream.close(error);
    ctx.trace.leave(stream.stage, { error });
    throw error;
  }
}

type TurnEnd = { kind: "finished"; promoted: Pick<Promotion, "queued"> | null } | { kind: "requires_action" };

/**
 * In the step's commit, on the history as it now is: FinishTurn or EnterRequiresAction when the
 * next decision would be that, otherwise nothing (the next task decides). A turn that would finish
 * is left to the next task when hooks are on: the stop hook is a call, not held under the lock.
 */
async function endTurnInCommit(ctx: TaskContext, tx: ChatTx, history: readonly HistoryRow[]): Promise<TurnEnd | undefined> {
  const next = decideNextStep({ chat: tx.chat, history, maxStepsPerTurn: ctx.config.CHAT_MAX_STEPS_PER_TURN });
  if (next.kind === "finish_turn" && !ctx.hooks.enabled) {
    const { promoted } = await finishTurn(tx);
    await releaseWhenIdle(tx);
    return { kind: "finished", promoted };
  }
  if (next.kind === "enter_requires_action") {
    await enterRequiresAction(tx);
    return { kind: "requires_action" };
  }
  return undefined;
}

/** The turn's trace and what follows a finished turn (its title), once the ending committed. */
function turnEnded(
  ctx: TaskContext,
  end: TurnEnd,
  chat: ChatRow,
  history: readonly ChatMessageRow[],
  /** The model the turn's last call used, when the ending commit was that call's. */
  model?: ResolvedModelConfig,
): void {
  ctx.trace.complete();
  if (end.kind !== "finished") return;
  if (end.promoted) ctx.trace.queueWait(end.promoted.queued.createdAt);
  ctx.turnFinished(chat, history, model);
}

async function finishWithModelError(ctx: TaskContext, err: ModelCallError): Promise<void> {
  const detail = { kind: err.kind, provider: err.provider, retryable: err.retryable, status_code: err.statusCode ?? null, detail: null };
  await failTurn(ctx, { error: describe(err), detail });
}

function describe(err: ModelCallError): string {
  return err.statusCode === undefined ? err.message : `${err.provider} answered ${err.statusCode}: ${err.message}`;
}
