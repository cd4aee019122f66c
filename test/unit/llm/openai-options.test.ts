/**
 * The spec's provider_options.openai table, walked field by field: every field is in the code's
 * table with the spec's support on each transport, and a field honoured on one transport but not
 * the other says why (TestProviderOptionsTransportParity).
 */
import { describe, expect, it } from "vitest";
import { OPENAI_OPTION_FIELDS, type OpenAIOptionField, openAIOptionsFor } from "../../../src/llm/openai-options";

/** The spec's table: field → [Responses, Chat Completions]. */
const SPEC_TABLE: Record<string, [boolean, boolean]> = {
  include: [true, false],
  instructions: [true, false],
  logit_bias: [false, true],
  log_probs: [true, true],
  top_log_probs: [true, true],
  max_tool_calls: [true, false],
  parallel_tool_calls: [true, true],
  user: [true, true],
  reasoning_summary: [true, false],
  max_completion_tokens: [false, true],
  text_verbosity: [true, true],
  prediction: [false, true],
  store: [true, true],
  metadata: [true, true],
  prompt_cache_key: [true, true],
  safety_identifier: [true, true],
  service_tier: [true, true],
  structured_outputs: [false, true],
  strict_json_schema: [true, false],
  web_search_enabled: [false, false],
  search_context_size: [false, false],
  allowed_domains: [false, false],
};

/** The spec's "three asymmetries [that] are deliberate near-equivalents". */
const NEAR_EQUIVALENTS = ["max_completion_tokens", "structured_outputs", "strict_json_schema"];

const fields = Object.entries(OPENAI_OPTION_FIELDS) as [string, OpenAIOptionField][];

describe("provider_options.openai transport parity", () => {
  it("lists exactly the spec's fields", () => {
    expect(fields.map(([name]) => name).sort()).toEqual(Object.keys(SPEC_TABLE).sort());
  });

  it.each(fields)("%s: honoured where the spec says, and an asymmetry says why", (name, field) => {
    const [responses, chat] = SPEC_TABLE[name]!;
    expect(field["openai-responses"] !== null).toBe(responses);
    expect(field["openai-chat"] !== null).toBe(chat);
    if (responses !== chat) expect(field.asymmetry, `${name} is honoured on one transport only`).toBeDefined();
    if (!responses && !chat) expect(field.asymmetry?.kind).toBe("tool-wiring");
    if (field.asymmetry?.kind === "near-equivalent") expect(NEAR_EQUIVALENTS).toContain(name);
  });

  it("marks the spec's three near-equivalents, and only those", () => {
    const marked = fields.filter(([, f]) => f.asymmetry?.kind === "near-equivalent").map(([name]) => name);
    expect(marked.sort()).toEqual([...NEAR_EQUIVALENTS].sort());
  });

  it.each(fields)("%s: converts to its AI SDK option on each transport, or is dropped", (name, field) => {
    for (const transport of ["openai-responses", "openai-chat"] as const) {
      const out = openAIOptionsFor({ [name]: "v" }, transport);
      const target = field[transport];
      expect(out).toEqual(target === null ? {} : { [target]: "v" });
    }
  });

  it("lets top_log_probs win over log_probs, and passes AI SDK-named keys through", () => {
    expect(openAIOptionsFor({ log_probs: true, top_log_probs: 5 }, "openai-responses")).toEqual({ logprobs: 5 });
    expect(openAIOptionsFor({ log_probs: true, top_log_probs: 5 }, "openai-chat")).toEqual({ logprobs: 5 });
    expect(openAIOptionsFor({ log_probs: true }, "openai-chat")).toEqual({ logprobs: true });
    expect(openAIOptionsFor({ serviceTier: "flex" }, "openai-chat")).toEqual({ serviceTier: "flex" });
  });
});
