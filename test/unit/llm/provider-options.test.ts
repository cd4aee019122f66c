import { describe, expect, it } from "vitest";
import type { ModelConfigOptions } from "../../../src/model-configs/options";
import { ANTHROPIC_THINKING_BUDGET } from "../../../src/llm/anthropic-effort";
import { providerOptionsFor, resolveReasoningEffort } from "../../../src/llm/provider-options";

const effortConfig = (options: ModelConfigOptions = { reasoning_effort: { default: "medium", max: "high" } }, model = "m") => ({
  model,
  options,
});

describe("resolveReasoningEffort", () => {
  it("uses the chat's effort, else the config's default, clamped to the config's max", () => {
    expect(resolveReasoningEffort(effortConfig(), "low")).toBe("low");
    expect(resolveReasoningEffort(effortConfig(), null)).toBe("medium");
    expect(resolveReasoningEffort(effortConfig(), undefined)).toBe("medium");
    expect(resolveReasoningEffort(effortConfig(), "max")).toBe("high");
    expect(resolveReasoningEffort(effortConfig(), "xhigh")).toBe("high");
    expect(resolveReasoningEffort(effortConfig(), "none")).toBe("none");
  });

  it("falls back to the default for a value off the scale", () => {
    expect(resolveReasoningEffort(effortConfig(), "turbo")).toBe("medium");
  });

  it("ignores the user's choice when the config has no reasoning_effort", () => {
    expect(resolveReasoningEffort(effortConfig({}), "high")).toBeUndefined();
  });
});

describe("providerOptionsFor", () => {
  it("sets the effort on each transport's own key", () => {
    expect(providerOptionsFor("openai-chat", effortConfig(), "high")).toEqual({ openai: { reasoningEffort: "high" } });
    expect(providerOptionsFor("openai-responses", effortConfig(), "high")).toEqual({ openai: { reasoningEffort: "high" } });
    expect(providerOptionsFor("anthropic-messages", effortConfig(), "high")).toEqual({
      anthropic: { thinking: { type: "adaptive" }, effort: "high" },
    });
    expect(providerOptionsFor("openai-compatible-chat", effortConfig(), "low")).toEqual({
      openaiCompatible: { reasoningEffort: "low" },
    });
  });

  it("maps the bottom of the scale onto Anthropic's: none disables thinking, minimal is low", () => {
    const all = effortConfig({ reasoning_effort: { default: "none", max: "max" } }, "claude-opus-4-6");
    expect(providerOptionsFor("anthropic-messages", all, "none")).toEqual({ anthropic: { thinking: { type: "disabled" } } });
    expect(providerOptionsFor("anthropic-messages", all, "minimal")).toEqual({
      anthropic: { thinking: { type: "adaptive" }, effort: "low" },
    });
    expect(providerOptionsFor("anthropic-messages", all, "max")).toEqual({ anthropic: { thinking: { type: "adaptive" }, effort: "max" } });
  });

  it("gives Claude models before 4.6 budget thinking instead of adaptive thinking", () => {
    const all = (model: string) => effortConfig({ reasoning_effort: { default: "none", max: "max" } }, model);
    expect(providerOptionsFor("anthropic-messages", all("claude-sonnet-4-5-20250929"), "medium")).toEqual({
      anthropic: { thinking: { type: "enabled", budgetTokens: ANTHROPIC_THINKING_BUDGET.medium } },
    });
    expect(providerOptionsFor("anthropic-messages", all("claude-3-7-sonnet-latest"), "max")).toEqual({
      anthropic: { thinking: { type: "enabled", budgetTokens: ANTHROPIC_THINKING_BUDGET.max } },
    });
    expect(providerOptionsFor("anthropic-messages", all("claude-sonnet-4-5"), "none")).toEqual({
      anthropic: { thinking: { type: "disabled" } },
    });
  });

  it("raises none and minimal to low for GPT-6 Astra on either transport, and only for it", () => {
    const astra = effortConfig({ reasoning_effort: { default: "none", max: "high" } }, "GPT-6-Astra-2026-01-01");
    for (const transport of ["openai-chat", "openai-responses"] as const) {
      expect(providerOptionsFor(transport, astra, "none")).toEqual({ openai: { reasoningEffort: "low" } });
      expect(providerOptionsFor(transport, astra, "minimal")).toEqual({ openai: { reasoningEffort: "low" } });
      expect(providerOptionsFor(transport, astra, "high")).toEqual({ openai: { reasoningEffort: "high" } });
    }
    const other = effortConfig({ reasoning_effort: { default: "none", max: "high" } }, "gpt-5");
    expect(providerOptionsFor("openai-chat", other, "none")).toEqual({ openai: { reasoningEffort: "none" } });
  });

  it("converts provider_options.openai for the transport, with the effort winning on its key", () => {
    const options: ModelConfigOptions = {
      reasoning_effort: { default: "low", max: "medium" },
      provider_options: {
        openai: { service_tier: "flex", max_completion_tokens: 100, include: ["reasoning.encrypted_content"], reasoningEffort: "xhigh" },
        anthropic: { sendReasoning: false },
        junk: 3,
      },
    };
    expect(providerOptionsFor("openai-chat", effortConfig(options), null)).toEqual({
      openai: { serviceTier: "flex", maxCompletionTokens: 100, reasoningEffort: "low" },
      anthropic: { sendReasoning: false },
    });
    expect(providerOptionsFor("openai-responses", effortConfig(options), null)).toEqual({
      openai: { serviceTier: "flex", include: ["reasoning.encrypted_content"], reasoningEffort: "low" },
      anthropic: { sendReasoning: false },
    });
  });

  it("sends the attribution id as the body's end user on each transport", () => {
    expect(providerOptionsFor("openai-chat", effortConfig({}), null, { user: "k1" })).toEqual({ openai: { user: "k1" } });
    expect(providerOptionsFor("openai-responses", effortConfig({}), null, { user: "k1" })).toEqual({ openai: { user: "k1" } });
    expect(providerOptionsFor("openai-compatible-chat", effortConfig({}), null, { user: "k1" })).toEqual({
      openaiCompatible: { user: "k1" },
    });
    expect(providerOptionsFor("anthropic-messages", effortConfig({}), null, { user: "k1" })).toEqual({
      anthropic: { metadata: { userId: "k1" } },
    });
  });

  it("sends nothing when there is nothing to send", () => {
    expect(providerOptionsFor("openai-chat", effortConfig({}), "high")).toBeUndefined();
  });
});
