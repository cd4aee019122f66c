/**
 * `chat_model_configs.options`, stored as the wire JSON (snake_case): docs/api.md "Model configs" and
 * the spec's "Reasoning effort".
 */

/** The spec's global effort scale, lowest first: clamping compares positions in this list. */
export const REASONING_EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export interface ModelConfigOptions {
  reasoning_effort?: { default: ReasoningEffort; max: ReasoningEffort };
  openai_config?: { use_responses_api?: boolean };
  provider_options?: Record<string, unknown>;
}

export function effortRank(effort: ReasoningEffort): number {
  return REASONING_EFFORTS.indexOf(effort);
}
