/**
 * The summary call: one non-streaming model call (AI SDK generateText) with its own retry budget
 * (spec "Generation goroutine": auxiliary calls "retry through chatretry with the same limit. Each
 * of those calls has its own budget, which generation_attempt does not track"). Retryable failures
 * back off like a turn's (1 s doubling to 60 s); a final failure throws the ModelCallError.
 */
import { generateText, type ToolSet } from "ai";
import { classifyModelError } from "../classify-error";
import { ModelCallError } from "../model-call-error";
import type { ModelPrompt } from "../prompt";
import { type ChatLanguageModel, providerFamily } from "../provider";
import { retryDelayMs } from "../retry";

/** The summary's cap when the summarizer's window is unknown, and its ceiling otherwise. */
export const SUMMARY_MAX_OUTPUT_TOKENS = 8_192;
/** The share of the summarizer's window the summary may fill: the margin the 80 % trigger leaves. */
export const SUMMARY_WINDOW_SHARE_PERCENT = 20;

/** "The summary's output cap is bounded by the summarizer's own window." */
export function summaryMaxOutputTokens(summarizerContextLimit: number | null): number {
  if (summarizerContextLimit === null || summarizerContextLimit <= 0) return SUMMARY_MAX_OUTPUT_TOKENS;
  return Math.max(1, Math.min(SUMMARY_MAX_OUTPUT_TOKENS, Math.floor((summarizerContextLimit * SUMMARY_WINDOW_SHARE_PERCENT) / 100)));
}

export interface SummarizeInput {
  model: ChatLanguageModel;
  prompt: ModelPrompt;
  maxOutputTokens: number;
  /**
   * The chat's tools, when the prompt keeps its tool history in the provider's shape (some
   * providers refuse tool calls in history without their definitions). Never called: tool choice
   * is "none".
   */
  tools?: ToolSet | undefined;
  abortSignal: AbortSignal;
  /** CHAT_MAX_GENERATION_RETRIES: attempts = retries + 1. */
  maxRetries: number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Told before each backoff (the runner shows it as the chat's retry state). */
  onRetry?(error: ModelCallError, attempt: number, delayMs: number): Promise<void> | void;
}

export type SummarizeOutcome = { kind: "summary"; text: string; inputTokens: number | null } | { kind: "aborted" };

export async function summarize(input: SummarizeInput): Promise<SummarizeOutcome> {
  const provider = providerFamily(input.model);
  for (let attempt = 1; ; attempt++) {
    if (input.abortSignal.aborted) return { kind: "aborted" };
    try {
      const result = await generateText({
        model: input.model,
        ...(input.prompt.system !== undefined ? { system: input.prompt.system } : {}),
        messages: input.prompt.messages,
        maxOutputTokens: input.maxOutputTokens,
        ...(input.tools && Object.keys(input.tools).length > 0 ? { tools: input.tools, toolChoice: "none" as const } : {}),
        abortSignal: input.abortSignal,
        maxRetries: 0,
      });
      const text = result.text.trim();
      if (text.length === 0) {
        throw new ModelCallError({ kind: "unknown", retryable: true, provider, message: "the summarizer returned an empty summary" });
      }
      return { kind: "summary", text, inputTokens: result.usage.inputTokens ?? null };
    } catch (err) {
      if (input.abortSignal.aborted) return { kind: "aborted" };
      const error = err instanceof ModelCallError ? err : classifyModelError(err, provider);
      if (!error.retryable || attempt > input.maxRetries) throw error;
      const delay = retryDelayMs(attempt);
      await input.onRetry?.(error, attempt, delay);
      await input.sleep(delay, input.abortSignal);
    }
  }
}
