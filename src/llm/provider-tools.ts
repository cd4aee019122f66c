/**
 * Tools the provider runs itself, offered to a model call next to the chat's own tools. Today one:
 * web search, when the model config turns it on (src/model-configs/web-search-options.ts), on the
 * two wires that have it as a tool: OpenAI Responses (`web_search`) and Anthropic Messages
 * (`web_search_20250305`). Chat Completions has none (OpenAI's search models search by themselves,
 * and OpenAI-compatible servers have no such tool), so the setting does nothing there.
 *
 * The provider streams the call and its result back in the response; the runner records them as
 * provider-tool-call / provider-tool-result parts (response-collector.ts) and never executes them.
 */
import { anthropic } from "@ai-sdk/anthropic";
import { openai } from "@ai-sdk/openai";
import type { ToolSet } from "ai";
import type { ModelConfigRow } from "../model-configs/configs";
import { type WebSearchFamily, type WebSearchSettings, webSearchSettings } from "../model-configs/web-search-options";
import type { ChatRow } from "../db/schema/chats";
import { dynamicToolDefinitions, type LocalToolRegistry, type ModelTools } from "./tools";
import type { ModelTransport } from "./transport";

/** The name the model knows web search by (Anthropic requires it; OpenAI's tool takes any). */
export const WEB_SEARCH_TOOL = "web_search";

export interface ProviderTools {
  /** Merged into the call's tools. */
  set: ToolSet;
  /** The wire these tools belong to: the provider parts of that family can be replayed to it. */
  family: WebSearchFamily | null;
  /** The names offered: a stored provider part replays natively only when its tool is offered again. */
  names: ReadonlySet<string>;
}

export const NO_PROVIDER_TOOLS: ProviderTools = { set: {}, family: null, names: new Set() };

/** The family whose provider tools a transport carries, or null. */
export function providerToolFamily(transport: ModelTransport): WebSearchFamily | null {
  if (transport === "openai-responses") return "openai";
  if (transport === "anthropic-messages") return "anthropic";
  return null;
}

export interface ProviderToolChoice {
  tools: ProviderTools;
  /** Provider tools not offered because a tool of the chat's has the name (the chat's tool wins). */
  shadowed: string[];
}

/**
 * The provider tools for a call on `transport` with `config`. `taken` holds the names of the chat's
 * own tools (dynamic and local): one of them named like a provider tool shadows it, as a dynamic
 * tool shadows a local one, so the model and the runner agree on who runs a call.
 */
export function providerToolsFor(
  transport: ModelTransport,
  config: Pick<ModelConfigRow, "options">,
  taken: ReadonlySet<string> = new Set(),
): ProviderToolChoice {
  const family = providerToolFamily(transport);
  if (family === null) return { tools: NO_PROVIDER_TOOLS, shadowed: [] };
  const settings = webSearchSettings(config.options, family);
  if (settings === null) return { tools: { ...NO_PROVIDER_TOOLS, family }, shadowed: [] };
  if (taken.has(WEB_SEARCH_TOOL)) return { tools: { ...NO_PROVIDER_TOOLS, family }, shadowed: [WEB_SEARCH_TOOL] };
  return {
    tools: { set: { [WEB_SEARCH_TOOL]: webSearchTool(family, settings) }, family, names: new Set([WEB_SEARCH_TOOL]) },
    shadowed: [],
  };
}

function webSearchTool(family: WebSearchFamily, settings: WebSearchSettings): ToolSet[string] {
  if (family === "openai") {
    return openai.tools.webSearch({
      ...(settings.searchContextSize ? { searchContextSize: settings.searchContextSize } : {}),
      ...(settings.allowedDomains ? { filters: { allowedDomains: settings.allowedDomains } } : {}),
    });
  }
  return anthropic.tools.webSearch_20250305({
    ...(settings.maxUses !== undefined ? { maxUses: settings.maxUses } : {}),
    ...(settings.allowedDomains ? { allowedDomains: settings.allowedDomains } : {}),
    ...(settings.blockedDomains ? { blockedDomains: settings.blockedDomains } : {}),
  });
}

/** The names of the chat's own tools: its local tools and the client's dynamic ones. */
export function chatToolNames(chat: Pick<ChatRow, "unsafeDynamicTools">, registry: LocalToolRegistry): Set<string> {
  return new Set([...registry.keys(), ...dynamicToolDefinitions(chat).map((t) => t.name)]);
}

/** The call's tools with the provider's added; a name the chat's tools already use stays theirs. */
export function withProviderTools(tools: ModelTools, provider: ProviderTools): ModelTools {
  const names = Object.keys(provider.set).filter((name) => !Object.hasOwn(tools.set, name));
  if (names.length === 0) return tools;
  return { ...tools, set: { ...tools.set, ...Object.fromEntries(names.map((name) => [name, provider.set[name]!])) } };
}
