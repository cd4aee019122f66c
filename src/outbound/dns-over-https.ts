/**
 * Resolving a name to its addresses through a DNS-over-HTTPS resolver's JSON API
 * (`GET ?name=&type=`, `accept: application/dns-json`, as Cloudflare's and Google's resolvers
 * answer it): A and AAAA at once. A Worker has no resolver of its own to ask, and asking one over
 * HTTPS sees the same public answers the platform's fetch will use.
 */
import { type IpBytes, parseIPv4, parseIPv6 } from "./ip-address";
import { readLimitedText } from "./limited-body";

/** One resolver answer; a few records, far below this. */
const MAX_ANSWER_BYTES = 64 * 1024;
export const DOH_TIMEOUT_MS = 5_000;

const RECORD = { A: 1, AAAA: 28 } as const;
type RecordType = keyof typeof RECORD;

/** RCODE 3: the name does not exist, an answer like any other (no addresses). */
const NXDOMAIN = 3;

export type Resolution =
  | { ok: true; addresses: IpBytes[] }
  /** `unresolvable`: the resolver answered, with no address. `failed`: it did not answer usably. */
  | { ok: false; kind: "unresolvable" | "failed"; detail: string };

export interface DohOptions {
  resolverUrl: string;
  fetch: typeof fetch;
  timeoutMs?: number;
}

class DohFailure extends Error {}

async function query(name: string, type: RecordType, options: DohOptions): Promise<IpBytes[]> {
  const url = new URL(options.resolverUrl);
  url.searchParams.set("name", name);
  url.searchParams.set("type", type);
  let status: number;
  let text: string;
  try {
    const res = await options.fetch(url, {
      headers: { accept: "application/dns-json" },
      signal: AbortSignal.timeout(options.timeoutMs ?? DOH_TIMEOUT_MS),
    });
    status = res.status;
    text = await readLimitedText(res, MAX_ANSWER_BYTES);
  } catch (err) {
    const timedOut = err instanceof Error && err.name === "TimeoutError";
    throw new DohFailure(
      timedOut ? "the resolver timed out" : `the resolver could not be reached (${err instanceof Error ? err.message : "error"})`,
    );
  }
  if (status !== 200) throw new DohFailure(`the resolver answered HTTP ${status}`);
  let answer: { Status?: unknown; Answer?: unknown };
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    throw new DohFailure("the resolver's answer is not JSON");
  }
  if (answer.Status === NXDOMAIN) return [];
  if (answer.Status !== 0) throw new DohFailure(`the resolver answered DNS status ${String(answer.Status)}`);
  const records = Array.isArray(answer.Answer) ? (answer.Answer as { type?: unknown; data?: unknown }[]) : [];
  const addresses: IpBytes[] = [];
  // CNAMEs come first in a chain's answer; only the addresses it ends in are connected to.
  for (const record of records) {
    if (record.type !== RECORD[type]) continue;
    const ip = typeof record.data === "string" ? (type === "A" ? parseIPv4(record.data) : parseIPv6(record.data)) : null;
    if (!ip) throw new DohFailure(`the resolver's ${type} record is not an address`);
    addresses.push(ip);
  }
  return addresses;
}

/** Every A and AAAA address of `name`; fails when either query does. */
export async function resolveOverHttps(name: string, options: DohOptions): Promise<Resolution> {
  try {
    const [v4, v6] = await Promise.all([query(name, "A", options), query(name, "AAAA", options)]);
    const addresses = [...v4, ...v6];
    if (addresses.length === 0) return { ok: false, kind: "unresolvable", detail: `${name} has no A or AAAA record` };
    return { ok: true, addresses };
  } catch (err) {
    if (err instanceof DohFailure) return { ok: false, kind: "failed", detail: `resolving ${name} failed: ${err.message}` };
    throw err;
  }
}
