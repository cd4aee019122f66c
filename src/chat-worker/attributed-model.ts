/**
 * A model client for any call a chat makes (turns, compaction summaries, titles): built for the
 * resolved config with the owner's attribution headers, and a function giving the provider options
 * for that client's transport with the attribution id and an effort. One entry point, so auxiliary
 * calls cannot forget attribution or convert options for the wrong transport.
 */
import type { ResolvedModelConfig } from "../model-configs/resolve";
import type { Attribution } from "../llm/attribution";
import { type ModelClient, modelClientFor } from "../llm/provider";
import { type ProviderOptions, providerOptionsFor } from "../llm/provider-options";

export interface AttributedModel {
  client: ModelClient;
  /** `requestedEffort`: the chat's last_reasoning_effort for a turn; omit for the config's default. */
  providerOptions(requestedEffort?: string | null): ProviderOptions | undefined;
}

/** Throws a non-retryable ModelCallError when the provider row cannot make a call. */
export function attributedModel(
  resolved: Pick<ResolvedModelConfig, "provider" | "config">,
  attribution: Attribution,
  opts: { fetch?: typeof fetch | undefined } = {},
): AttributedModel {
  const client = modelClientFor(resolved.provider, resolved.config, {
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    headers: attribution.headers,
  });
  return {
    client,
    providerOptions: (requestedEffort) =>
      providerOptionsFor(client.transport, resolved.config, requestedEffort, { user: attribution.user }),
  };
}
