/**
 * Per-call provider options: the model config's `provider_options` converted for the client's
 * resolved transport, plus the turn's reasoning effort and the owner's attribution id. One function
 * owns all three, so the effort can never land in an option struct the transport does not read.
 *
 * Effort (spec "Reasoning effort"): the chat's last_reasoning_effort if set, else the config's
 * default, clamped to the config's max; ignored when the config has no reasoning_effort.
 */
import type { JSONValue } from "ai";
import type { ModelConfigRow } from "../model-configs/configs";
import { effortRank, REASONING_EFFORTS, type ReasoningEffort } from "../model-configs/options";
import { withoutWebSearchFields } from "../model-configs/web-search-options";
import { anthropicEffortOptions } from "./anthropic-effort";
import { openAIOptionsFor } from "./openai-options";
import { isGpt6Astra, type ModelTransport } from "./transport";

/** The AI SDK's `providerOptions`: one object per provider key. */
export type ProviderOptions = Record<string, Record<string, JSONValue>>;

/** The providerOptions key each transport's provider reads. */
const OPTIONS_KEY: Record<ModelTransport, string> = {
  "openai-responses": "openai",
  "openai-chat": "openai",
  "anthropic-messages": "anthropic",
  "openai-compatible-chat": "openaiCompatible",
};

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

export interface CallExtras {
  /** The attribution id sent as the end-user field of OpenAI-style bodies (and Anthropic's metadata). */
  user?: string | undefined;
}

/**
 * `provider_options` objects pass through per provider key; `provider_options.openai` is converted
 * for the transport (src/llm/openai-options.ts). The effort and the attribution user are then set
 * on the transport's key, over anything the config wrote there. Undefined when there is nothing.
 */
export function providerOptionsFor(
  transport: ModelTransport,
  config: Pick<ModelConfigRow, "model" | "options">,
  requestedEffort?: string | null,
  extras: CallExtras = {},
): ProviderOptions | undefined {
  const options: ProviderOptions = {};
  for (const [key, value] of Object.entries(config.options.provider_options ?? {})) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
    const fields = value as Record<string, unknown>;
    // The web search fields wire a tool (provider-tools.ts): no request option carries them.
    options[key] =
      key === "openai" && (transport === "openai-responses" || transport === "openai-chat")
        ? openAIOptionsFor(fields, transport)
        : key === "anthropic"
          ? withoutWebSearchFields(fields as Record<string, JSONValue>)
          : { ...(fields as Record<string, JSONValue>) };
  }
  const key = OPTIONS_KEY[transport];
  const effort = resolveReasoningEffort(config, requestedEffort);
  if (effort !== undefined) options[key] = { ...options[key], ...effortOptions(transport, config.model, effort) };
  if (extras.user !== undefined) options[key] = { ...options[key], ...userOptions(transport, extras.user) };
  return Object.keys(options).length === 0 ? undefined : options;
}

function effortOptions(transport: ModelTransport, model: string, effort: ReasoningEffort): Record<string, JSONValue> {
  switch (transport) {
    case "openai-responses":
    case "openai-chat":
      // GPT-6 Astra rejects `none` and lists no `minimal` (spec: applyReasoningEffort).
      return { reasoningEffort: isGpt6Astra(model) && effortRank(effort) < effortRank("low") ? "low" : effort };
    case "anthropic-messages":
      return anthropicEffortOptions(model, effort);
    case "openai-compatible-chat":
      return { reasoningEffort: effort };
  }
}

function userOptions(transport: ModelTransport, user: string): Record<string, JSONValue> {
  // Anthropic has no `user` field; metadata.user_id is its end-user id.
  return transport === "anthropic-messages" ? { metadata: { userId: user } } : { user };
}
