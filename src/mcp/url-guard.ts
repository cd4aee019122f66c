/**
 * The outbound guard as the deployment configures it, for MCP server URLs: the routes check a URL
 * when it is registered or changed, the chat object again before each connection
 * (docs/hardening.md), since an allow-list or a DNS answer may have changed in between.
 */
import type { Config } from "../config/env";
import { createOutboundGuard, type OutboundGuard } from "../outbound/guard";

/** The platform's fetch, called unbound (workerd refuses a detached `fetch` called as a method). */
const platformFetch: typeof fetch = (input, init) => fetch(input, init);

export function mcpUrlGuard(config: Pick<Config, "CHAT_OUTBOUND_ALLOW" | "CHAT_OUTBOUND_DNS_URL">): OutboundGuard {
  return createOutboundGuard({ allow: config.CHAT_OUTBOUND_ALLOW, resolverUrl: config.CHAT_OUTBOUND_DNS_URL }, { fetch: platformFetch });
}
