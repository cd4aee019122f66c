/**
 * The summary call: one non-streaming model call with its own retry budget (the shared
 * backgroundModelCall: retryable failures back off like a turn's, a final failure throws the
 * ModelCallError), and the summary's output cap.
 */
import type { ToolSet } from "ai";
import { backgroundModelCall } from "../background-call";
import { ModelCallError } from "../model-call-error";
import type { ModelPrompt } from "../prompt";
import type { ProviderOptions } from "../provider-options";
import { type ChatLanguageModel, providerFamily } from "../provider";

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
  providerOptions?: ProviderOptions | undefined;
  /** The chat's tools, when the prompt keeps its tool history in the provider's shape. */
  tools?: ToolSet | undefined;
  abortSignal: AbortSignal;
  /** CHAT_MAX_GENERATION_RETRIES: attempts = retries + 1. */
  maxRetries: number;
  /** CHAT_RETRY_INITIAL_DELAY_MS: the first backoff, doubling. */
  retryInitialMs: number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Told before each backoff (the runner shows it as the chat's retry state). */
  onRetry?(error: ModelCallError, attempt: number, delayMs: number): Promise<void> | void;
}

export type SummarizeOutcome = { kind: "summary"; text: string; inputTokens: number | null } | { kind: "aborted" };

export async function summarize(input: SummarizeInput): Promise<SummarizeOutcome> {
  let text: string;
  let inputTokens: number | undefined;
  try {
    ({ text, inputTokens } = await backgroundModelCall({
      model: input.model,
      ...(input.prompt.system !== undefined ? { system: input.prompt.system } : {}),
      messages: input.prompt.messages,
      maxOutputTokens: input.maxOutputTokens,
      providerOptions: input.providerOptions,
      tools: input.tools,
      maxRetries: input.maxRetries,
      retryInitialMs: input.retryInitialMs,
      abortSignal: input.abortSignal,
      sleep: input.sleep,
      onRetry: input.onRetry,
    }));
  } catch (err) {
    if (input.abortSignal.aborted) return { kind: "aborted" };
    throw err;
  }
  const summary = text.trim();
  if (summary.length === 0) {
    throw new ModelCallError({
      kind: "unknown",
      retryable: false,
      provider: providerFamily(input.model),
      message: "the summarizer returned an empty summary",
    });
  }
  return { kind: "summary", text: summary, inputTokens: inputTokens ?? null };
}
