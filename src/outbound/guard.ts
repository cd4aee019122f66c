/**
 * The outbound request guard (docs/hardening.md): whether the service may fetch a URL a tenant
 * supplied. Refused: a scheme other than http(s); credentials in the URL; an operator-unlisted
 * host that is, or resolves to, an address that is not public (forbidden-addresses.ts), or a
 * reserved name (reserved-names.ts). Names are resolved through DNS-over-HTTPS, and a failed
 * resolution refuses too (fail closed). Hosts on the operator's allow-list skip the address and
 * DNS checks, never the scheme and credentials ones.
 */
import { type AllowEntry, isAllowListed } from "./allow-list";
import { DOH_TIMEOUT_MS, resolveOverHttps } from "./dns-over-https";
import { forbiddenAddress } from "./forbidden-addresses";
import { formatIp, parseIpLiteral } from "./ip-address";
import { reservedName } from "./reserved-names";

export type RefusalKind = "invalid" | "scheme" | "credentials" | "address" | "unresolvable" | "dns_failed";

/** What a chat user may read about a refusal: fixed text, nothing from the URL or the resolver. */
const SHORT_REASON: Record<RefusalKind, string> = {
  invalid: "invalid URL",
  scheme: "scheme not allowed",
  credentials: "credentials in URL",
  address: "address not allowed",
  unresolvable: "name does not resolve",
  dns_failed: "DNS resolution failed",
};

export class OutboundRefusedError extends Error {
  override name = "OutboundRefusedError";
  /** Short and fixed, e.g. "address not allowed". */
  readonly reason: string;
  constructor(
    readonly kind: RefusalKind,
    /** For the operator and the tenant who set the URL, e.g. "10.0.0.7 is a private address". */
    readonly detail: string,
  ) {
    super(detail);
    this.reason = SHORT_REASON[kind];
  }
}

export interface OutboundSettings {
  allow: readonly AllowEntry[];
  /** The DNS-over-HTTPS resolver's JSON endpoint. */
  resolverUrl: string;
}

export interface OutboundGuard {
  /** Resolves when `url` may be fetched; throws OutboundRefusedError saying why not. */
  check(url: string | URL): Promise<void>;
}

export function createOutboundGuard(settings: OutboundSettings, deps: { fetch: typeof fetch; dnsTimeoutMs?: number }): OutboundGuard {
  return {
    async check(input) {
      let url: URL;
      try {
        url = new URL(input);
      } catch {
        throw new OutboundRefusedError("invalid", "not a valid URL");
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        throw new OutboundRefusedError("scheme", `the scheme ${url.protocol.slice(0, -1)} is not http or https`);
      }
      if (url.username !== "" || url.password !== "") {
        throw new OutboundRefusedError("credentials", "the URL carries credentials (user:password@)");
      }
      if (isAllowListed(url, settings.allow)) return;
      const host = url.hostname;
      const literal = parseIpLiteral(host);
      if (literal) {
        const why = forbiddenAddress(literal);
        if (why) throw new OutboundRefusedError("address", `${host} is ${why}`);
        return;
      }
      const reserved = reservedName(host);
      if (reserved) throw new OutboundRefusedError("address", `${host} is ${reserved}`);
      const resolved = await resolveOverHttps(host, {
        resolverUrl: settings.resolverUrl,
        fetch: deps.fetch,
        timeoutMs: deps.dnsTimeoutMs ?? DOH_TIMEOUT_MS,
      });
      if (!resolved.ok) throw new OutboundRefusedError(resolved.kind === "unresolvable" ? "unresolvable" : "dns_failed", resolved.detail);
      for (const ip of resolved.addresses) {
        const why = forbiddenAddress(ip);
        if (why) throw new OutboundRefusedError("address", `${host} resolves to ${formatIp(ip)}, ${why}`);
      }
    },
  };
}
