/**
 * A model client for any call a chat makes (turns, compaction summaries, titles): built for the
 * resolved config with the owner's attribution headers, and a function giving the provider options
 * for that client's transport with the attribution id and an effort. One entry point, so auxiliary
 * calls cannot forget attribution or convert options for the wrong transport, and the one place
 * a provider's sealed API key is opened (docs/hardening.md), for this call only.
 */
import type { ResolvedModelConfig } from "../model-configs/resolve";
import { openedProvider } from "../model-configs/provider-secrets";
import type { Attribution } from "../llm/attribution";
import { ModelCallError } from "../llm/model-call-error";
import { type ModelClient, modelClientFor } from "../llm/provider";
import { transportFor } from "../llm/transport";
import type { DebugCapture } from "../debug-runs/capture";
import type { DebugCall } from "../debug-runs/recorder";
import { type ProviderOptions, providerOptionsFor } from "../llm/provider-options";
import { logger } from "../log/log";
import { SecretsError } from "../secrets/errors";
import type { KeyRing } from "../secrets/key-ring";

export interface AttributedModel {
  client: ModelClient;
  /** What the call sends and receives, when the chat records debug runs (src/debug-runs). */
  debug: DebugCapture | undefined;
  /** `requestedEffort`: the chat's last_reasoning_effort for a turn; omit for the config's default. */
  providerOptions(requestedEffort?: string | null): ProviderOptions | undefined;
}

/**
 * Throws a non-retryable ModelCallError when the provider row cannot make a call, its API key
 * unopenable with `keys` (the deployment's CHAT_SECRETS_KEYS) included.
 */
export async function attributedModel(
  resolved: Pick<ResolvedModelConfig, "provider" | "config">,
  attribution: Attribution,
  keys: KeyRing,
  opts: { fetch?: typeof fetch | undefined; debug?: DebugCall | undefined } = {},
): Promise<AttributedModel> {
  const provider = await openProvider(keys, resolved.provider);
  // The capture sits closest to the wire: what it keeps is what was sent, the provider's key included
  // (which it is told, to redact).
  const transport = transportFor(provider, resolved.config) ?? provider.type;
  const debug = opts.debug?.capture({
    provider: provider.type,
    model: resolved.config.model,
    modelConfigId: resolved.config.id,
    transport,
  });
  debug?.secret(provider.apiKey);
  const fetch = debug ? debug.fetch(opts.fetch ?? ((input, init) => globalThis.fetch(input, init))) : opts.fetch;
  const client = modelClientFor(provider, resolved.config, {
    ...(fetch ? { fetch } : {}),
    headers: attribution.headers,
  });
  return {
    client,
    debug,
    providerOptions: (requestedEffort) =>
      providerOptionsFor(client.transport, resolved.config, requestedEffort, { user: attribution.user }),
  };
}

/** A key that cannot be opened fails the call for good: no retry brings a dropped key back. */
async function openProvider(keys: KeyRing, provider: ResolvedModelConfig["provider"]): Promise<ResolvedModelConfig["provider"]> {
  try {
    return await openedProvider(keys, provider);
  } catch (err) {
    if (!(err instanceof SecretsError)) throw err;
    logger.error("provider_key_unreadable", { provider_id: provider.id, code: err.code, error: err.message });
    throw new ModelCallError({
      kind: "auth",
      retryable: false,
      provider: provider.type,
      message: `the API key of provider "${provider.name}" cannot be opened with CHAT_SECRETS_KEYS (${err.code})`,
    });
  }
}
