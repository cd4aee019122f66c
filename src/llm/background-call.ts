/**
 * A non-streaming model call with its own retry budget, for work beside the turn (chat titles
 * today). Spec "Generation goroutine": such calls "retry ... with the same limit. Each of those
 * calls has its own budget, which generation_attempt does not track"; background generation that
 * runs out "leaves the chat status unchanged" — so this throws and the caller gives up quietly.
 *
 * Same failure rules as a turn's step: retryable kinds (408, 429, 5xx, network, timeout) wait the
 * turn's backoff (1 s doubling to 60 s) and try again; anything else fails at once.
 */
import { generateText, type ModelMessage, type ToolSet } from "ai";
import { classifyModelError } from "./classify-error";
import { ModelCallError } from "./model-call-error";
import { resolvePromptSchema } from "./prompt-schema";
import { type ChatLanguageModel, providerFamily } from "./provider";
import type { ProviderOptions } from "./provider-options";
import { retryDelayMs, shouldFinishError } from "./retry";

export interface BackgroundCallInput {
  model: ChatLanguageModel;
  system?: string;
  messages: ModelMessage[];
  maxOutputTokens?: number;
  providerOptions?: ProviderOptions | undefined;
  /** Extra headers for this call (attribution). */
  headers?: Record<string, string> | undefined;
  /**
   * Tool definitions the messages' tool history refers to (some providers refuse tool calls in
   * history without them). Never called: the tool choice is "none".
   */
  tools?: ToolSet | undefined;
  /** Told before each backoff, e.g. to show the retry to clients. */
  onRetry?(error: ModelCallError, attempt: number, delayMs: number): Promise<void> | void;
  /** Retries after the first attempt (CHAT_MAX_GENERATION_RETRIES). */
  maxRetries: number;
  /** The first backoff (CHAT_RETRY_INITIAL_DELAY_MS), doubling. */
  retryInitialMs: number;
  abortSignal: AbortSignal;
  /** Resolves after `ms`, rejects when `signal` aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export interface BackgroundCallResult {
  text: string;
  /** How many attempts it took (1 = no retry). */
  attempts: number;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
}

/** Resolves to the model's text; throws the last ModelCallError once the budget is spent. */
export async function backgroundModelCall(input: BackgroundCallInput): Promise<BackgroundCallResult> {
  const provider = providerFamily(input.model);
  resolvePromptSchema();
  for (let attempt = 1; ; attempt++) {
    input.abortSignal.throwIfAborted();
    try {
      const result = await generateText({
        model: input.model,
        ...(input.system !== undefined ? { system: input.system } : {}),
        messages: input.messages,
        maxRetries: 0,
        abortSignal: input.abortSignal,
        ...(input.maxOutputTokens !== undefined ? { maxOutputTokens: input.maxOutputTokens } : {}),
        ...(input.providerOptions ? { providerOptions: input.providerOptions } : {}),
        ...(input.headers ? { headers: input.headers } : {}),
        ...(input.tools && Object.keys(input.tools).length > 0 ? { tools: input.tools, toolChoice: "none" as const } : {}),
      });
      return { text: result.text, attempts: attempt, inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens };
    } catch (error) {
      input.abortSignal.throwIfAborted();
      const failure = error instanceof ModelCallError ? error : classifyModelError(error, provider);
      if (!failure.retryable || shouldFinishError(attempt, input.maxRetries)) throw failure;
      const delay = retryDelayMs(attempt, input.retryInitialMs);
      await input.onRetry?.(failure, attempt, delay);
      await input.sleep(delay, input.abortSignal);
    }
  }
}
