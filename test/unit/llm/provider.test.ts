import { describe, expect, it } from "vitest";
import type { ModelConfigRow } from "../../../src/model-configs/configs";
import type { ProviderRow } from "../../../src/model-configs/providers";
import { ModelCallError } from "../../../src/llm/model-call-error";
import { languageModelFor, providerFamily } from "../../../src/llm/provider";

const now = new Date(0);

function provider(type: string, fields: Partial<ProviderRow> = {}): ProviderRow {
  return {
    id: "p",
    type,
    name: `my-${type}`,
    baseUrl: "http://127.0.0.1:9/v1",
    apiKey: "k",
    // In the clear, as the model client gets it (provider-secrets.ts opens it first).
    apiKeySealedWith: null,
    enabled: true,
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
}

function config(options: ModelConfigRow["options"] = {}): ModelConfigRow {
  return {
    id: "c",
    organizationId: "o",
    providerId: "p",
    model: "gpt-x",
    displayName: null,
    enabled: true,
    isDefault: true,
    contextLimit: null,
    compressionThreshold: null,
    options,
    inputPriceMicros: null,
    outputPriceMicros: null,
    cachedInputPriceMicros: null,
    reasoningPriceMicros: null,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

describe("languageModelFor", () => {
  it("builds the transport the model config asks for", () => {
    const chat = languageModelFor(provider("openai"), config());
    const forcedChat = languageModelFor(provider("openai"), config({ openai_config: { use_responses_api: false } }));
    const responses = languageModelFor(provider("openai"), config({ openai_config: { use_responses_api: true } }));
    expect([chat.provider, forcedChat.provider, responses.provider]).toEqual(["openai.chat", "openai.chat", "openai.responses"]);
    expect(responses.modelId).toBe("gpt-x");
  });

  it("builds Anthropic and OpenAI-compatible models", () => {
    expect(languageModelFor(provider("anthropic"), config()).provider).toBe("anthropic.messages");
    expect(languageModelFor(provider("openai-compatible"), config()).provider).toBe("openai-compatible.chat");
    // A local OpenAI-compatible server may need no key.
    expect(languageModelFor(provider("openai-compatible", { apiKey: null }), config()).provider).toBe("openai-compatible.chat");
  });

  it("names the provider family the way the provider row's type does", () => {
    for (const type of ["openai", "anthropic", "openai-compatible"]) {
      expect(providerFamily(languageModelFor(provider(type), config()))).toBe(type);
    }
  });

  it("refuses a provider without a key instead of reading one from the environment", () => {
    for (const type of ["openai", "anthropic"]) {
      expect(() => languageModelFor(provider(type, { apiKey: null }), config())).toThrow(ModelCallError);
      let refused: unknown = null;
      try {
        languageModelFor(provider(type, { apiKey: "" }), config());
      } catch (error) {
        refused = error;
      }
      expect(refused).toMatchObject({ kind: "auth", retryable: false, provider: type });
    }
  });

  it("refuses an OpenAI-compatible provider without a base URL and an unknown type", () => {
    expect(() => languageModelFor(provider("openai-compatible", { baseUrl: null }), config())).toThrow(ModelCallError);
    expect(() => languageModelFor(provider("bedrock"), config())).toThrow(/not supported/);
  });
});
