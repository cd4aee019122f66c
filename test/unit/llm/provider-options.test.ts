import { describe, expect, it } from "vitest";
import type { ModelConfigOptions } from "../../../src/db/model-configs/options";
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
  it("sets the effort on each provider's own key", () => {
    expect(providerOptionsFor({ type: "openai" }, effortConfig(), "high")).toEqual({ openai: { reasoningEffort: "high" } });
    expect(providerOptionsFor({ type: "anthropic" }, effortConfig(), "high")).toEqual({ anthropic: { effort: "high" } });
    expect(providerOptionsFor({ type: "openai-compatible" }, effortConfig(), "low")).toEqual({
      openaiCompatible: { reasoningEffort: "low" },
    });
  });

  it("maps the bottom of the scale onto Anthropic's: none disables thinking, minimal is low", () => {
    const all = effortConfig({ reasoning_effort: { default: "none", max: "max" } });
    expect(providerOptionsFor({ type: "anthropic" }, all, "none")).toEqual({ anthropic: { thinking: { type: "disabled" } } });
    expect(providerOptionsFor({ type: "anthropic" }, all, "minimal")).toEqual({ anthropic: { effort: "low" } });
    expect(providerOptionsFor({ type: "anthropic" }, all, "max")).toEqual({ anthropic: { effort: "max" } });
  });

  it("raises none and minimal to low for GPT-6 Astra", () => {
    const astra = effortConfig({ reasoning_effort: { default: "none", max: "high" } }, "GPT-6-Astra-2026-01-01");
    expect(providerOptionsFor({ type: "openai" }, astra, "none")).toEqual({ openai: { reasoningEffort: "low" } });
    expect(providerOptionsFor({ type: "openai" }, astra, "high")).toEqual({ openai: { reasoningEffort: "high" } });
  });

  it("passes the config's provider_options through, with the effort winning on its key", () => {
    const options: ModelConfigOptions = {
      reasoning_effort: { default: "low", max: "medium" },
      provider_options: { openai: { serviceTier: "flex", reasoningEffort: "xhigh" }, anthropic: { sendReasoning: false }, junk: 3 },
    };
    expect(providerOptionsFor({ type: "openai" }, effortConfig(options), null)).toEqual({
      openai: { serviceTier: "flex", reasoningEffort: "low" },
      anthropic: { sendReasoning: false },
    });
  });

  it("sends nothing when there is nothing to send", () => {
    expect(providerOptionsFor({ type: "openai" }, effortConfig({}), "high")).toBeUndefined();
  });
});
