/**
 * `provider_options.openai` converted for the resolved OpenAI transport (spec "OpenAI transport
 * selection"). Both transports read the same config, written with the spec's field names
 * (snake_case); not every field applies to both wire formats. OPENAI_OPTION_FIELDS records, per
 * field, the AI SDK option it becomes on each transport (null: not honoured there), and why when
 * the two differ. test/unit/llm/openai-options.test.ts walks it: a field honoured on one transport
 * and ignored on the other must say why.
 */
import type { JSONValue } from "ai";

export type OpenAITransport = "openai-responses" | "openai-chat";

export type Asymmetry =
  /** The spec's three deliberate near-equivalents: the other transport has its own switch. */
  | { kind: "near-equivalent"; note: string }
  /** The other wire format has no such parameter. */
  | { kind: "api-specific"; note: string }
  /** Configures tool wiring, not a request option: neither transport reads it here. */
  | { kind: "tool-wiring"; note: string };

export interface OpenAIOptionField {
  /** The AI SDK option this field becomes on each transport; null when that transport ignores it. */
  "openai-responses": string | null;
  "openai-chat": string | null;
  asymmetry?: Asymmetry;
}

export const OPENAI_OPTION_FIELDS = {
  include: { "openai-responses": "include", "openai-chat": null, asymmetry: { kind: "api-specific", note: "Responses output includes" } },
  instructions: {
    "openai-responses": "instructions",
    "openai-chat": null,
    asymmetry: { kind: "api-specific", note: "Chat Completions carries instructions as system messages" },
  },
  logit_bias: {
    "openai-responses": null,
    "openai-chat": "logitBias",
    asymmetry: { kind: "api-specific", note: "Responses has no logit bias" },
  },
  log_probs: { "openai-responses": "logprobs", "openai-chat": "logprobs" },
  // Both transports read the AI SDK's single `logprobs` (a number asks for top log probs), so when
  // both fields are set top_log_probs wins on both (the spec's third near-equivalent, on Responses).
  top_log_probs: { "openai-responses": "logprobs", "openai-chat": "logprobs" },
  max_tool_calls: {
    "openai-responses": "maxToolCalls",
    "openai-chat": null,
    asymmetry: { kind: "api-specific", note: "Chat Completions has no tool call cap" },
  },
  parallel_tool_calls: { "openai-responses": "parallelToolCalls", "openai-chat": "parallelToolCalls" },
  user: { "openai-responses": "user", "openai-chat": "user" },
  reasoning_summary: {
    "openai-responses": "reasoningSummary",
    "openai-chat": null,
    asymmetry: { kind: "api-specific", note: "Chat Completions returns no reasoning summaries" },
  },
  max_completion_tokens: {
    "openai-responses": null,
    "openai-chat": "maxCompletionTokens",
    asymmetry: { kind: "near-equivalent", note: "on Responses the transport-neutral max_output_tokens bounds output" },
  },
  text_verbosity: { "openai-responses": "textVerbosity", "openai-chat": "textVerbosity" },
  prediction: {
    "openai-responses": null,
    "openai-chat": "prediction",
    asymmetry: { kind: "api-specific", note: "predicted outputs exist on Chat Completions only" },
  },
  store: { "openai-responses": "store", "openai-chat": "store" },
  metadata: { "openai-responses": "metadata", "openai-chat": "metadata" },
  prompt_cache_key: { "openai-responses": "promptCacheKey", "openai-chat": "promptCacheKey" },
  safety_identifier: { "openai-responses": "safetyIdentifier", "openai-chat": "safetyIdentifier" },
  service_tier: { "openai-responses": "serviceTier", "openai-chat": "serviceTier" },
  // The AI SDK names the Chat Completions strictness switch strictJsonSchema too.
  structured_outputs: {
    "openai-responses": null,
    "openai-chat": "strictJsonSchema",
    asymmetry: { kind: "near-equivalent", note: "the Chat Completions strictness switch; strict_json_schema on Responses" },
  },
  strict_json_schema: {
    "openai-responses": "strictJsonSchema",
    "openai-chat": null,
    asymmetry: { kind: "near-equivalent", note: "the Responses strictness switch; structured_outputs on Chat Completions" },
  },
  web_search_enabled: { "openai-responses": null, "openai-chat": null, asymmetry: { kind: "tool-wiring", note: "web search tool" } },
  search_context_size: { "openai-responses": null, "openai-chat": null, asymmetry: { kind: "tool-wiring", note: "web search tool" } },
  allowed_domains: { "openai-responses": null, "openai-chat": null, asymmetry: { kind: "tool-wiring", note: "web search tool" } },
} as const satisfies Record<string, OpenAIOptionField>;

export type OpenAIOptionName = keyof typeof OPENAI_OPTION_FIELDS;

function isTableField(key: string): key is OpenAIOptionName {
  return Object.hasOwn(OPENAI_OPTION_FIELDS, key);
}

/**
 * The AI SDK's `providerOptions.openai` for `transport`. Fields of the table are renamed or dropped
 * as the table says; any other key passes through unchanged (an AI SDK option name written
 * directly, e.g. `serviceTier`), so configs written against the SDK keep working.
 */
export function openAIOptionsFor(config: Record<string, unknown>, transport: OpenAITransport): Record<string, JSONValue> {
  const out: Record<string, JSONValue> = {};
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    if (!isTableField(key)) {
      out[key] = value as JSONValue;
      continue;
    }
    if (key === "log_probs" && config.top_log_probs !== undefined) continue; // top_log_probs wins
    const target = (OPENAI_OPTION_FIELDS[key] as OpenAIOptionField)[transport];
    if (target !== null) out[target] = value as JSONValue;
  }
  return out;
}
