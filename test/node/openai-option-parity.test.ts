// The spec's provider_options.openai table checked on the wire: each field is set in a model
// config, the request goes through the real AI SDK OpenAI provider on both transports to the fake
// model, and the request log shows whether the field reached the body. It must reach it exactly
// where OPENAI_OPTION_FIELDS says it is honoured; the unit test (test/unit/llm/openai-options)
// checks that every one-sided field says why.
import { describe, expect, inject, it } from "vitest";
import { OPENAI_OPTION_FIELDS, type OpenAIOptionField, type OpenAIOptionName } from "../../src/llm/openai-options";
import { buildPrompt } from "../../src/llm/prompt";
import { modelClientFor } from "../../src/llm/provider";
import { providerOptionsFor } from "../../src/llm/provider-options";
import { runModelStep } from "../../src/llm/step";
import type { OpenAITransport } from "../../src/llm/openai-options";
import { fakeProvider, messageRow, modelConfigRow } from "./support/model-rows";

const fakeUrl = inject("fakeModelUrl");

interface Probe {
  sample: unknown;
  /** Where the field shows in each transport's body (dotted path). */
  wire: Record<OpenAITransport, string>;
  /** Some fields apply to reasoning models only; others are dropped by the SDK for them. */
  model?: string;
}

/**
 * One probe per field of the table. structured_outputs and strict_json_schema only set `strict` on
 * a JSON response format, which a chat turn never sends, so they have no probe (the unit test
 * covers their mapping); the web search fields are tool wiring and must show nowhere.
 */
const PROBES: Partial<Record<OpenAIOptionName, Probe>> = {
  include: { sample: ["reasoning.encrypted_content"], wire: { "openai-responses": "include", "openai-chat": "include" }, model: "gpt-5" },
  instructions: { sample: "be brief", wire: { "openai-responses": "instructions", "openai-chat": "instructions" } },
  logit_bias: { sample: { "50256": -100 }, wire: { "openai-responses": "logit_bias", "openai-chat": "logit_bias" } },
  log_probs: { sample: true, wire: { "openai-responses": "top_logprobs", "openai-chat": "logprobs" } },
  top_log_probs: { sample: 3, wire: { "openai-responses": "top_logprobs", "openai-chat": "top_logprobs" } },
  max_tool_calls: { sample: 2, wire: { "openai-responses": "max_tool_calls", "openai-chat": "max_tool_calls" } },
  parallel_tool_calls: { sample: false, wire: { "openai-responses": "parallel_tool_calls", "openai-chat": "parallel_tool_calls" } },
  user: { sample: "someone", wire: { "openai-responses": "user", "openai-chat": "user" } },
  reasoning_summary: {
    sample: "auto",
    wire: { "openai-responses": "reasoning.summary", "openai-chat": "reasoning_summary" },
    model: "gpt-5",
  },
  max_completion_tokens: { sample: 50, wire: { "openai-responses": "max_completion_tokens", "openai-chat": "max_completion_tokens" } },
  text_verbosity: { sample: "low", wire: { "openai-responses": "text.verbosity", "openai-chat": "verbosity" } },
  prediction: { sample: { type: "content", content: "x" }, wire: { "openai-responses": "prediction", "openai-chat": "prediction" } },
  store: { sample: false, wire: { "openai-responses": "store", "openai-chat": "store" } },
  metadata: { sample: { team: "core" }, wire: { "openai-responses": "metadata", "openai-chat": "metadata" } },
  prompt_cache_key: { sample: "k1", wire: { "openai-responses": "prompt_cache_key", "openai-chat": "prompt_cache_key" } },
  safety_identifier: { sample: "s1", wire: { "openai-responses": "safety_identifier", "openai-chat": "safety_identifier" } },
  service_tier: { sample: "auto", wire: { "openai-responses": "service_tier", "openai-chat": "service_tier" } },
  web_search_enabled: { sample: true, wire: { "openai-responses": "web_search_enabled", "openai-chat": "web_search_enabled" } },
  search_context_size: { sample: "low", wire: { "openai-responses": "search_context_size", "openai-chat": "search_context_size" } },
  allowed_domains: { sample: ["example.com"], wire: { "openai-responses": "allowed_domains", "openai-chat": "allowed_domains" } },
};
const UNPROBED = ["structured_outputs", "strict_json_schema"];

function at(value: unknown, path: string): unknown {
  return path
    .split(".")
    .reduce<unknown>((v, key) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined), value);
}

async function sentBody(transport: OpenAITransport, model: string, openai: Record<string, unknown>): Promise<Record<string, unknown>> {
  const provider = fakeProvider({ id: "p", type: "openai" });
  const config = modelConfigRow(provider, {
    id: "c",
    organizationId: "o",
    model,
    options: { openai_config: { use_responses_api: transport === "openai-responses" }, provider_options: { openai } },
  });
  const client = modelClientFor(provider, config);
  const nonce = `parity ${crypto.randomUUID().slice(0, 8)}`;
  const row = messageRow("user", [{ type: "text", text: nonce }]);
  const outcome = await runModelStep({
    model: client.model,
    prompt: buildPrompt({ chat: { systemPrompt: null }, history: [row] }),
    abortSignal: new AbortController().signal,
    providerOptions: providerOptionsFor(client.transport, config, null),
    onPart: () => {},
  });
  expect(outcome.kind).toBe("response");
  const res = await fetch(`${fakeUrl}/_requests?contains=${encodeURIComponent(nonce)}`);
  const [request] = ((await res.json()) as { requests: { params: Record<string, unknown> }[] }).requests;
  return request!.params;
}

describe("provider_options.openai on the wire", () => {
  it("has a probe for every field but the two strictness switches", () => {
    expect([...Object.keys(PROBES), ...UNPROBED].sort()).toEqual(Object.keys(OPENAI_OPTION_FIELDS).sort());
  });

  it.each(Object.entries(PROBES) as [OpenAIOptionName, Probe][])(
    "%s reaches the body exactly where the table honours it",
    async (name, probe) => {
      const field = OPENAI_OPTION_FIELDS[name] as OpenAIOptionField;
      for (const transport of ["openai-responses", "openai-chat"] as const) {
        const body = await sentBody(transport, probe.model ?? "gpt-4o", { [name]: probe.sample });
        const honoured = field[transport] !== null;
        expect(at(body, probe.wire[transport]) !== undefined, `${name} on ${transport}`).toBe(honoured);
      }
    },
  );
});
