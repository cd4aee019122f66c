import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { describe, expect, it } from "vitest";
import { pacedModel } from "../../../src/llm/stream-pacing";

describe("pacedModel", () => {
  // AI SDK 7 providers build specification v4 models: a check for "v3" alone let them through unpaced.
  it.each([
    ["openai chat", createOpenAI({ apiKey: "k" }).chat("m")],
    ["openai responses", createOpenAI({ apiKey: "k" }).responses("m")],
    ["anthropic", createAnthropic({ apiKey: "k" })("m")],
    ["openai-compatible", createOpenAICompatible({ name: "openai-compatible", baseURL: "http://127.0.0.1:1/v1" })("m")],
  ])("wraps the %s model the providers build", (_name, model) => {
    const paced = pacedModel(model);
    expect(paced).not.toBe(model);
    expect(paced.provider).toBe(model.provider);
    expect(paced.modelId).toBe(model.modelId);
  });
});
