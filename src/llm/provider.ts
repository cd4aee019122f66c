/**
 * The AI SDK language model for a chat's resolved provider and model config. Runs in workerd and
 * Node alike: every request goes through `fetch` (the global one unless the caller passes its own).
 * Models are shared across calls (shared-models.ts); the fetch and the headers are the call's.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import type { ModelConfigRow } from "../model-configs/configs";
import type { ProviderRow } from "../model-configs/providers";
import { ModelCallError } from "./model-call-error";
import { fetchOfCall, sharedModel, withPerCall } from "./shared-models";
import { type ModelTransport, transportFor } from "./transport";

/** A model object (not a gateway model id string): it names its provider and model. */
export type ChatLanguageModel = Exclude<LanguageModel, string>;

export interface LanguageModelOptions {
  fetch?: typeof fetch;
  /** Sent with every request, after the provider's own auth headers. */
  headers?: Record<string, string>;
}

/**
 * The name the openai-compatible provider is created with. It becomes the model's `provider`
 * ("openai-compatible.chat"), so errors name the same family as the provider row's type.
 */
export const OPENAI_COMPATIBLE_NAME = "openai-compatible";

/** A language model with the transport it was built for: the one fact every request-shaping step reads. */
export interface ModelClient {
  model: ChatLanguageModel;
  transport: ModelTransport;
}

/**
 * Throws a non-retryable ModelCallError when the row cannot make a call at all (a key or base URL
 * missing, an unknown type): the runner handles it like any other final failure. A missing key is
 * refused here rather than left to the SDK, which would read OPENAI_API_KEY / ANTHROPIC_API_KEY from
 * the process environment on Node.
 */
export function modelClientFor(provider: ProviderRow, config: ModelConfigRow, opts: LanguageModelOptions = {}): ModelClient {
  const transport = transportFor(provider, config);
  if (transport === undefined) throw unusable(provider, "bad_request", `provider type "${provider.type}" is not supported`);
  const key = JSON.stringify([transport, provider.type, provider.baseUrl, provider.apiKey, config.model]);
  const model = sharedModel(key, () => buildModel(transport, provider, config));
  return { transport, model: withPerCall(model, opts) };
}

/** A new model for the transport, its requests going through the fetch of the call (shared-models.ts). */
function buildModel(transport: ModelTransport, provider: ProviderRow, config: ModelConfigRow): ChatLanguageModel {
  const common = { ...(provider.baseUrl ? { baseURL: provider.baseUrl } : {}), fetch: fetchOfCall };
  switch (transport) {
    case "openai-responses":
      return createOpenAI({ ...common, apiKey: requireApiKey(provider) }).responses(config.model);
    case "openai-chat":
      return createOpenAI({ ...common, apiKey: requireApiKey(provider) }).chat(config.model);
    case "anthropic-messages":
      return createAnthropic({ ...common, apiKey: requireApiKey(provider) })(config.model);
    case "openai-compatible-chat":
      if (!provider.baseUrl) throw unusable(provider, "bad_request", "an openai-compatible provider needs a base URL");
      return createOpenAICompatible({
        ...common,
        name: OPENAI_COMPATIBLE_NAME,
        baseURL: provider.baseUrl,
        ...(provider.apiKey ? { apiKey: provider.apiKey } : {}),
        includeUsage: true,
      })(config.model);
  }
}

/** The model alone, for callers that need no transport. */
export function languageModelFor(provider: ProviderRow, config: ModelConfigRow, opts: LanguageModelOptions = {}): ChatLanguageModel {
  return modelClientFor(provider, config, opts).model;
}

/** "openai", "anthropic" or "openai-compatible": the family of a model built by languageModelFor. */
export function providerFamily(model: ChatLanguageModel): string {
  return model.provider.split(".")[0] ?? model.provider;
}

function requireApiKey(provider: ProviderRow): string {
  if (!provider.apiKey) throw unusable(provider, "auth", `provider "${provider.name}" has no API key`);
  return provider.apiKey;
}

function unusable(provider: ProviderRow, kind: "auth" | "bad_request", message: string): ModelCallError {
  return new ModelCallError({ kind, retryable: false, provider: provider.type, message });
}
