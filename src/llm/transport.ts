/**
 * Which wire format a model client speaks (spec "OpenAI transport selection"). Resolved once, when
 * the client is built (src/llm/provider.ts), and carried with it: provider option conversion, effort
 * injection and file part gating all read this value instead of deciding again, so they cannot
 * disagree with the client.
 */
import type { ModelConfigRow } from "../model-configs/configs";
import type { ProviderRow } from "../model-configs/providers";

export type ModelTransport = "openai-responses" | "openai-chat" | "anthropic-messages" | "openai-compatible-chat";

/**
 * OpenAI models known to prefer the Responses API. A model absent from this list (a new release)
 * falls back to Chat Completions unless its config sets `openai_config.use_responses_api`.
 * GPT-6 Astra is here because its function calling is Responses-only.
 */
export const RESPONSES_API_MODELS: readonly RegExp[] = [
  /^o\d/i, // o1, o3, o4-mini, ...
  /^gpt-5/i,
  /codex/i,
  /^computer-use/i,
  /^gpt-6-astra/i,
];

/** GPT-6 Astra and its dated snapshots (case-insensitive prefix). */
export function isGpt6Astra(model: string): boolean {
  return /^gpt-6-astra/i.test(model);
}

/** `override` true forces Responses, false forces Chat Completions, unset consults the known list. */
export function usesResponsesApi(model: string, override: boolean | undefined): boolean {
  if (override !== undefined) return override;
  return RESPONSES_API_MODELS.some((pattern) => pattern.test(model));
}

/** Undefined for a provider type no client is built for. */
export function transportFor(
  provider: Pick<ProviderRow, "type">,
  config: Pick<ModelConfigRow, "model" | "options">,
): ModelTransport | undefined {
  switch (provider.type) {
    case "openai":
      return usesResponsesApi(config.model, config.options.openai_config?.use_responses_api) ? "openai-responses" : "openai-chat";
    case "anthropic":
      return "anthropic-messages";
    case "openai-compatible":
      return "openai-compatible-chat";
    default:
      return undefined;
  }
}
