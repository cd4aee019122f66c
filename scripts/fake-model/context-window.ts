// Prompt size and context windows. Usage reports the prompt's size the way a tokenizer would,
// deterministically: one token per 4 characters of prompt text (rounded up), so tests can reason
// about thresholds. A model whose id ends in `-ctx<N>` (or `-ctx<N>k`) has an N-token window
// (e.g. `fake-ctx2000`, `fake-ctx32k`); a prompt larger than the window gets the provider's real
// context-length-exceeded error instead of a reply.

import { isRecord } from "./wire";

export const CHARS_PER_TOKEN = 4;

/** The request fields that hold the prompt (Chat: messages; Responses: input, instructions; Anthropic: messages, system). */
const PROMPT_FIELDS = ["messages", "input", "instructions", "system"] as const;

/** Keys that carry structure, not text the model reads. */
const STRUCTURAL_KEYS = new Set([
  "role",
  "type",
  "id",
  "call_id",
  "tool_call_id",
  "tool_use_id",
  "status",
  "cache_control",
  "media_type",
  "mediaType",
  "detail",
]);

function textChars(value: unknown): number {
  if (typeof value === "string") return value.length;
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + textChars(item), 0);
  if (isRecord(value)) {
    let sum = 0;
    for (const [key, item] of Object.entries(value)) if (!STRUCTURAL_KEYS.has(key)) sum += textChars(item);
    return sum;
  }
  return 0;
}

/** The prompt's size in tokens: ceil(characters of its text / 4). */
export function promptTokens(body: unknown): number {
  if (!isRecord(body)) return 0;
  const chars = PROMPT_FIELDS.reduce((sum, field) => sum + textChars(body[field]), 0);
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The window named by the model id (`-ctx<N>` / `-ctx<N>k`), else the server's default (null: unlimited). */
export function contextLimitOf(model: string, fallback: number | null): number | null {
  const match = /-ctx(\d+)(k?)$/.exec(model);
  if (match === null) return fallback;
  return Number(match[1]) * (match[2] === "k" ? 1000 : 1);
}

export type ContextWire = "openai_chat" | "openai_responses" | "anthropic";

/** The error body each provider answers (HTTP 400) when the prompt does not fit. */
export function contextExceededBody(wire: ContextWire, limit: number, tokens: number): unknown {
  switch (wire) {
    case "openai_chat":
      return {
        error: {
          message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        },
      };
    case "openai_responses":
      return {
        error: {
          message: `Your input exceeds the context window of this model (${tokens} > ${limit} tokens). Please adjust your input and try again.`,
          type: "invalid_request_error",
          param: "input",
          code: "context_length_exceeded",
        },
      };
    case "anthropic":
      return {
        type: "error",
        error: { type: "invalid_request_error", message: `prompt is too long: ${tokens} tokens > ${limit} maximum` },
      };
  }
}
