/**
 * Provider web search, as a model config turns it on: fields of `provider_options.openai` (the
 * spec's tool-wiring fields: web_search_enabled, search_context_size, allowed_domains) and of
 * `provider_options.anthropic` (web_search_enabled, allowed_domains, blocked_domains, max_uses).
 * Off unless web_search_enabled is true. The same schemas check a config when an admin writes it
 * (src/routes/model-config-schemas.ts) and read it when a call is prepared (src/llm/provider-tools.ts),
 * so a config stored before the check cannot turn on a malformed tool: it reads as off.
 */
import { z } from "zod";
import type { ModelConfigOptions } from "./options";

export const SEARCH_CONTEXT_SIZES = ["low", "medium", "high"] as const;
export type SearchContextSize = (typeof SEARCH_CONTEXT_SIZES)[number];

/** Domains one filter may list: a bound on what a config holds, and on what every request carries. */
export const MAX_SEARCH_DOMAINS = 100;
/** Anthropic's per-response cap on searches, bounded here: each search is billed. */
export const MAX_WEB_SEARCH_USES = 50;

/** The provider_options fields that configure web search, which no request option may carry. */
export const WEB_SEARCH_FIELDS = ["web_search_enabled", "search_context_size", "allowed_domains", "blocked_domains", "max_uses"] as const;

const domain = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^(?![a-z][a-z0-9+.-]*:\/\/)\S+$/i, {
    error: "a domain is written without a scheme or spaces, e.g. example.com or example.com/docs",
  });
const domains = z
  .array(domain)
  .min(1)
  .max(MAX_SEARCH_DOMAINS, { error: `at most ${MAX_SEARCH_DOMAINS} domains` });

/** `provider_options.openai`: its web search fields checked, every other option passed through as before. */
export const OpenAIProviderOptionsSchema = z
  .object({
    web_search_enabled: z.boolean().optional(),
    search_context_size: z.enum(SEARCH_CONTEXT_SIZES).optional(),
    allowed_domains: domains.optional(),
  })
  .catchall(z.unknown());

/** `provider_options.anthropic`: likewise. Anthropic takes an allow list or a block list, never both. */
export const AnthropicProviderOptionsSchema = z
  .object({
    web_search_enabled: z.boolean().optional(),
    allowed_domains: domains.optional(),
    blocked_domains: domains.optional(),
    max_uses: z.number().int().min(1).max(MAX_WEB_SEARCH_USES).optional(),
  })
  .catchall(z.unknown())
  .refine((o) => o.allowed_domains === undefined || o.blocked_domains === undefined, {
    error: "allowed_domains and blocked_domains cannot both be set",
    path: ["blocked_domains"],
  });

export type WebSearchFamily = "openai" | "anthropic";

/** What the provider's web search tool is built with. */
export interface WebSearchSettings {
  allowedDomains?: string[];
  blockedDomains?: string[];
  searchContextSize?: SearchContextSize;
  maxUses?: number;
}

/** The config's web search for `family`, or null when it is off (or stored malformed). */
export function webSearchSettings(
  options: Pick<ModelConfigOptions, "provider_options">,
  family: WebSearchFamily,
): WebSearchSettings | null {
  const raw = options.provider_options?.[family];
  if (raw === undefined) return null;
  if (family === "openai") {
    const parsed = OpenAIProviderOptionsSchema.safeParse(raw);
    if (!parsed.success || parsed.data.web_search_enabled !== true) return null;
    const { allowed_domains, search_context_size } = parsed.data;
    return {
      ...(allowed_domains ? { allowedDomains: allowed_domains } : {}),
      ...(search_context_size ? { searchContextSize: search_context_size } : {}),
    };
  }
  const parsed = AnthropicProviderOptionsSchema.safeParse(raw);
  if (!parsed.success || parsed.data.web_search_enabled !== true) return null;
  const { allowed_domains, blocked_domains, max_uses } = parsed.data;
  return {
    ...(allowed_domains ? { allowedDomains: allowed_domains } : {}),
    ...(blocked_domains ? { blockedDomains: blocked_domains } : {}),
    ...(max_uses !== undefined ? { maxUses: max_uses } : {}),
  };
}

/** `fields` without the web search fields: they wire a tool, they are not request options. */
export function withoutWebSearchFields<T>(fields: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [key, value] of Object.entries(fields)) if (!(WEB_SEARCH_FIELDS as readonly string[]).includes(key)) out[key] = value;
  return out;
}
