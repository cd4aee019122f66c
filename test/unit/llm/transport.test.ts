import { describe, expect, it } from "vitest";
import { claudeVersion, usesBudgetThinking } from "../../../src/llm/anthropic-effort";
import { ANTHROPIC_MAX_IMAGE_BYTES, acceptsFileMediaType, fileSizeLimit } from "../../../src/llm/file-media-types";
import { isGpt6Astra, transportFor, usesResponsesApi } from "../../../src/llm/transport";

const openai = { type: "openai" };
const config = (model: string, use_responses_api?: boolean) => ({
  model,
  options: use_responses_api === undefined ? {} : { openai_config: { use_responses_api } },
});

describe("OpenAI transport selection", () => {
  it("follows the known-model list when the config says nothing", () => {
    for (const model of [
      "o1",
      "o3-mini",
      "o4-mini-2025-04-16",
      "gpt-5",
      "gpt-5.1-mini",
      "gpt-5-codex",
      "codex-mini-latest",
      "GPT-6-Astra-2026-01",
    ]) {
      expect(usesResponsesApi(model, undefined), model).toBe(true);
    }
    for (const model of ["gpt-4o", "gpt-4.1", "gpt-3.5-turbo", "some-new-model", "omni-moderation"]) {
      expect(usesResponsesApi(model, undefined), model).toBe(false);
    }
  });

  it("lets use_responses_api force either transport", () => {
    expect(transportFor(openai, config("gpt-4o", true))).toBe("openai-responses");
    expect(transportFor(openai, config("gpt-5", false))).toBe("openai-chat");
    expect(transportFor(openai, config("gpt-5"))).toBe("openai-responses");
    expect(transportFor(openai, config("gpt-4o"))).toBe("openai-chat");
  });

  it("has one transport per other provider type, and none for an unknown type", () => {
    expect(transportFor({ type: "anthropic" }, config("claude-opus-4-6", true))).toBe("anthropic-messages");
    expect(transportFor({ type: "openai-compatible" }, config("gpt-5", true))).toBe("openai-compatible-chat");
    expect(transportFor({ type: "bedrock" }, config("x"))).toBeUndefined();
  });

  it("recognizes GPT-6 Astra by a case-insensitive prefix", () => {
    expect(isGpt6Astra("gpt-6-astra")).toBe(true);
    expect(isGpt6Astra("GPT-6-ASTRA-2026-05-01")).toBe(true);
    expect(isGpt6Astra("gpt-6")).toBe(false);
    expect(isGpt6Astra("my-gpt-6-astra")).toBe(false);
  });
});

describe("Claude versions", () => {
  it("reads the version from every naming scheme", () => {
    expect(claudeVersion("claude-3-5-sonnet-20241022")).toEqual({ major: 3, minor: 5 });
    expect(claudeVersion("claude-3-opus-20240229")).toEqual({ major: 3, minor: 0 });
    expect(claudeVersion("claude-sonnet-4-20250514")).toEqual({ major: 4, minor: 0 });
    expect(claudeVersion("claude-opus-4-1")).toEqual({ major: 4, minor: 1 });
    expect(claudeVersion("claude-sonnet-4-6")).toEqual({ major: 4, minor: 6 });
    expect(claudeVersion("anthropic.claude-opus-4-5-20251101-v1:0")).toEqual({ major: 4, minor: 5 });
    expect(claudeVersion("my-proxy-model")).toBeUndefined();
  });

  it("uses budget thinking before 4.6 only; unknown ids count as current", () => {
    expect(usesBudgetThinking("claude-3-7-sonnet-latest")).toBe(true);
    expect(usesBudgetThinking("claude-opus-4-5")).toBe(true);
    expect(usesBudgetThinking("claude-opus-4-6")).toBe(false);
    expect(usesBudgetThinking("claude-opus-5-5")).toBe(false);
    expect(usesBudgetThinking("fake")).toBe(false);
  });
});

describe("file media types per transport", () => {
  it("takes images and PDF everywhere, text only where the provider converts it", () => {
    for (const t of ["openai-responses", "openai-chat", "anthropic-messages", "openai-compatible-chat"] as const) {
      expect(acceptsFileMediaType(t, "image/png")).toBe(true);
      expect(acceptsFileMediaType(t, "IMAGE/JPEG")).toBe(true);
      expect(acceptsFileMediaType(t, "application/pdf")).toBe(true);
      expect(acceptsFileMediaType(t, "image/tiff")).toBe(false);
      expect(acceptsFileMediaType(t, "application/zip")).toBe(false);
    }
    expect(acceptsFileMediaType("openai-responses", "text/plain")).toBe(false);
    expect(acceptsFileMediaType("openai-chat", "text/plain")).toBe(false);
    expect(acceptsFileMediaType("anthropic-messages", "text/plain")).toBe(true);
    expect(acceptsFileMediaType("anthropic-messages", "text/csv")).toBe(false);
    expect(acceptsFileMediaType("openai-compatible-chat", "text/csv")).toBe(true);
  });
});

describe("file size limits per transport", () => {
  it("keeps Anthropic images under its 5 MiB base64 limit, and sets no other", () => {
    expect(Math.ceil((ANTHROPIC_MAX_IMAGE_BYTES * 4) / 3)).toBe(5 * 1024 * 1024);
    expect(fileSizeLimit("anthropic-messages", "image/png")).toBe(ANTHROPIC_MAX_IMAGE_BYTES);
    expect(fileSizeLimit("anthropic-messages", "application/pdf")).toBe(Number.POSITIVE_INFINITY);
    expect(fileSizeLimit("openai-responses", "image/png")).toBe(Number.POSITIVE_INFINITY);
  });
});
