/**
 * The operator's outbound allow-list (CHAT_OUTBOUND_ALLOW): `host` or `host:port` entries,
 * comma-separated, matched exactly against a URL's host (and port, when the entry has one). A
 * listed host skips the address and DNS checks, for self-hosted setups whose MCP servers live on
 * the private network, and for the tests and dev stack, whose servers listen on 127.0.0.1.
 */

export interface AllowEntry {
  /** As the URL parser spells it: lowercase, IPv4 normalized, IPv6 in brackets. */
  host: string;
  /** Null: any port. */
  port: number | null;
}

const ENTRY = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]/@?#]+)(?::(\d{1,5}))?$/;

/** The entries of `text`, or the first entry that is not `host` or `host:port`. */
export function parseAllowList(text: string): { ok: true; entries: AllowEntry[] } | { ok: false; bad: string } {
  const entries: AllowEntry[] = [];
  for (const raw of text.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const match = ENTRY.exec(entry);
    const port = match?.[2] === undefined ? null : Number(match[2]);
    let host: string | null = null;
    try {
      if (match) host = new URL(`http://${match[1]}/`).hostname;
    } catch {
      host = null;
    }
    if (host === null || host === "" || (port !== null && (port < 1 || port > 65535))) return { ok: false, bad: entry };
    entries.push({ host, port });
  }
  return { ok: true, entries };
}

/** The port a URL connects to: its own, or its scheme's default. */
export function effectivePort(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

export function isAllowListed(url: URL, entries: readonly AllowEntry[]): boolean {
  return entries.some((e) => e.host === url.hostname && (e.port === null || e.port === effectivePort(url)));
}
