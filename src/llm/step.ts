/**
 * One model call: streams ONE response with the AI SDK, reports its parts as they arrive, and
 * returns the assistant message to commit. No retries (the runner retries, with RecordRetryState
 * between attempts) and no tool execution or second step (the runner decides what follows).
 *
 * How the AI SDK ends a stream: a failure arrives as an `error` part (onError is set only to keep
 * the SDK from logging it); an abort arrives as an `abort` part, not an error, and onError is not
 * called. Which signal fired (the runner's or the idle timer's) is read from the signals.
 */
import { type CallWarning, type FinishReason, type LanguageModelUsage, stepCountIs, streamText } from "ai";
import type { ToolResultPart } from "../chatstate/rules";
import type { ChatMessagePart, MessageUsage } from "../db/schema/chats";
import { classifyModelError } from "./classify-error";
import { IdleTimer } from "./idle-timer";
import { ModelCallError } from "./model-call-error";
import type { ModelPrompt } from "./prompt";
import { resolvePromptSchema } from "./prompt-schema";
import { type ChatLanguageModel, providerFamily } from "./provider";
import type { ProviderOptions } from "./provider-options";
import { type PacingOptions, pacedModel } from "./stream-pacing";
import { ResponseCollector, type StepToolCall } from "./response-collector";
import type { StreamPart } from "../wire/stream-part";
import type { ModelTools } from "./tools";

export type { StepToolCall } from "./response-collector";

export interface StepUsage {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  totalTokens: number | undefined;
  reasoningTokens: number | undefined;
  cachedInputTokens: number | undefined;
}

export interface ModelResponse {
  kind: "response";
  /** The assistant message's content, in stream order. */
  assistant: ChatMessagePart[];
  /** Valid calls, in call order. */
  toolCalls: StepToolCall[];
  /**
   * Error results for calls the SDK rejected (unknown tool, arguments that are not JSON or do not
   * match the schema). Their calls are in `assistant`; commit these results in the same CommitStep,
   * so the next decision finds them answered and the model sees what it got wrong.
   */
  toolErrors: ToolResultPart[];
  finishReason: FinishReason;
  usage: StepUsage;
  /** What the provider ignored or changed in the request (unsupported settings and the like). */
  warnings: CallWarning[];
}

/** The runner's signal fired: not a failure. `assistant` is what had streamed so far. */
export interface StepAborted {
  kind: "aborted";
  assistant: ChatMessagePart[];
}

export type StepOutcome = ModelResponse | StepAborted;

export interface RunModelStepInput {
  model: ChatLanguageModel;
  prompt: ModelPrompt;
  tools?: ModelTools | undefined;
  abortSignal: AbortSignal;
  maxOutputTokens?: number | undefined;
  providerOptions?: ProviderOptions | undefined;
  /** Fail with a retryable `timeout` when nothing arrives for this long, the first token included. */
  idleTimeoutMs?: number | undefined;
  /** Called for every streamed part. Best-effort like the part buffer: a throw is ignored. */
  onPart(part: StreamPart): void;
  /** How the model's stream is paced so that parts go out while it streams (stream-pacing.ts). */
  pacing?: PacingOptions | undefined;
}

/** Resolves to the response or to `aborted`; throws ModelCallError for every failure. */
export async function runModelStep(input: RunModelStepInput): Promise<StepOutcome> {
  const { model, prompt, abortSignal } = input;
  if (abortSignal.aborted) return { kind: "aborted", assistant: [] };

  const provider = providerFamily(model);
  const collected = new ResponseCollector(
    input.tools?.dynamicNames ?? new Set(),
    (part) => {
      try {
        input.onPart(part);
      } catch {
        // Spec: "If AddPart returns an error, the goroutine ignores it."
      }
    },
    provider,
  );
  // The SDK's own chunk timeout would not cover the first token: its providers read the first
  // chunk before that timer starts.
  const idle = new IdleTimer(input.idleTimeoutMs);
  resolvePromptSchema();
  try {
    const result = streamText({
      model: pacedModel(model, input.pacing),
      ...(prompt.system !== undefined ? { system: prompt.system } : {}),
      messages: prompt.messages,
      ...(input.tools ? { tools: input.tools.set } : {}),
      abortSignal: idle.signal ? AbortSignal.any([abortSignal, idle.signal]) : abortSignal,
      maxRetries: 0,
      stopWhen: stepCountIs(1),
      ...(input.maxOutputTokens !== undefined ? { maxOutputTokens: input.maxOutputTokens } : {}),
      ...(input.providerOptions ? { providerOptions: input.providerOptions } : {}),
      onError: () => {},
    });
    for await (const part of result.fullStream) {
      idle.reset();
      collected.accept(part);
      // Stop at the first failure; leaving the loop cancels the request.
      if (collected.failure) break;
    }
  } catch (error) {
    collected.failure ??= { error };
  } finally {
    idle.stop();
  }

  if (abortSignal.aborted) return { kind: "aborted", assistant: collected.assistant() };
  if (idle.fired) {
    throw new ModelCallError({
      kind: "timeout",
      retryable: true,
      provider,
      message: `the model sent nothing for ${input.idleTimeoutMs} ms`,
    });
  }
  if (collected.failure) throw classifyModelError(collected.failure.error, provider);
  if (!collected.finish) {
    // Defensive: the SDK synthesizes a finish ("interrupted") even when the provider closed without one.
    throw new ModelCallError({
      kind: "network",
      retryable: true,
      provider,
      message: "the response stream ended before the model finished",
    });
  }
  return {
    kind: "response",
    assistant: collected.assistant(),
    toolCalls: collected.toolCalls,
    toolErrors: collected.toolErrors,
    finishReason: collected.finish.finishReason,
    usage: stepUsage(collected.finish.usage),
    warnings: collected.warnings,
  };
}

/** The stored form of a step's usage (chat_messages.usage): the compaction trigger reads input_tokens. */
export function messageUsage(usage: StepUsage): MessageUsage {
  return {
    input_tokens: usage.inputTokens ?? null,
    output_tokens: usage.outputTokens ?? null,
    total_tokens: usage.totalTokens ?? null,
    reasoning_tokens: usage.reasoningTokens ?? null,
    cached_input_tokens: usage.cachedInputTokens ?? null,
  };
}

function stepUsage(usage: LanguageModelUsage): StepUsage {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.totalTokens,
    reasoningTokens: usage.outputTokenDetails?.reasoningTokens,
    cachedInputTokens: usage.inputTokenDetails?.cacheReadTokens,
  };
}
