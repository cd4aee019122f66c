/**
 * Per-call provider options: the model config's `provider_options` plus the turn's reasoning
 * effort (spec "Reasoning effort": the chat's last_reasoning_effort if set, else the config's
 * default, clamped to the config's max; ignored when the config has no reasoning_effort).
 */
import type { JSONValue } from "ai";
import type { ModelConfigRow } from "../db/model-configs/configs";
import { effortRank, REASONING_EFFORTS, type ReasoningEffort } from "../db/model-configs/options";
import type { ProviderRow } from "../db/model-configs/providers";

/** The AI SDK's `providerOptions`: one object per provider key. */
export type ProviderOptions = Record<string, Record<string, JSONValue>>;

/** The providerOptions key each provider type reads (openai-compatible also reads its own name). */
const OPTIONS_KEY: Record<string, string> = {
  openai: "openai",
  anthropic: "anthropic",
  "openai-compatible": "openaiCompatible",
};

/** GPT-6 Astra rejects `none` and lists no `minimal` (spec: applyReasoningEffort). */
const GPT6_ASTRA = /^gpt-6-astra/i;

export function isReasoningEffort(value: unknown): value is ReasoningEffort {
  return typeof value === "string" && (REASONING_EFFORTS as readonly string[]).includes(value);
}

/** The effort to send, or undefined when the config offers none (a user's choice is then ignored). */
export function resolveReasoningEffort(
  config: Pick<ModelConfigRow, "options">,
  requested: string | null | undefined,
): ReasoningEffort | undefined {
  const allowed = config.options.reasoning_effort;
  if (!allowed) return undefined;
  const wanted = isReasoningEffort(requested) ? requested : allowed.default;
  return effortRank(wanted) > effortRank(allowed.max) ? allowed.max : wanted;
}

/**
 * `provider_options` entries that are objects pass through unchanged (keys as the AI SDK names
 * them, e.g. `{openai: {serviceTier: "flex"}}`); the effort is then set on the provider's key, over
 * any effort the config wrote there. Undefined when there is nothing to send.
 */
export function providerOptionsFor(
  provider: Pick<ProviderRow, "type">,
  config: Pick<ModelConfigRow, "model" | "options">,
  requestedEffort?: string | null,
): ProviderOptions | undefined {
  const options: ProviderOptions = {};
  for (const [key, value] of Object.entries(config.options.provider_options ?? {})) {
    if (typeof value === "object" && value !== null && !Array.isArray(value)) options[key] = { ...(value as Record<string, JSONValue>) };
  }
  const effort = resolveReasoningEffort(config, requestedEffort);
  const key = OPTIONS_KEY[provider.type];
  if (effort !== undefined && key !== undefined) {
    options[key] = { ...options[key], ...effortOptions(provider.type, config.model, effort) };
  }
  return Object.keys(options).length === 0 ? undefined : options;
}

function effortOptions(type: string, model: string, effort: ReasoningEffort): Record<string, JSONValue> {
  switch (type) {
    case "openai":
      return { reasoningEffort: GPT6_ASTRA.test(model) && effortRank(effort) < effortRank("low") ? "low" : effort };
    case "anthropic":
      // Anthropic's scale starts at low; `none` turns extended thinking off instead.
      if (effort === "none") return { thinking: { type: "disabled" } };
      return { effort: effort === "minimal" ? "low" : effort };
    default:
      return { reasoningEffort: effort };
  }
}
