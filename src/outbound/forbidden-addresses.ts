/**
 * Which IP addresses a tenant's URL may not reach: everything that is not a globally reachable
 * unicast address (the IANA special-purpose registries), so a fetch the service makes for a tenant
 * cannot land on the machine itself, its network, or a cloud metadata endpoint. IPv6 forms that
 * carry an IPv4 address (mapped, translated, NAT64, 6to4) are judged by that address.
 */
import { formatIp, type IpBytes, parseIPv4, parseIPv6 } from "./ip-address";

interface Range {
  bytes: IpBytes;
  bits: number;
  what: string;
}

function range(cidr: string, what: string): Range {
  const [address, bits] = cidr.split("/");
  const bytes = address!.includes(":") ? parseIPv6(address!) : parseIPv4(address!);
  if (!bytes) throw new Error(`bad range ${cidr}`);
  return { bytes, bits: Number(bits), what };
}

function inRange(ip: IpBytes, r: Range): boolean {
  if (ip.length !== r.bytes.length) return false;
  for (let bit = 0; bit < r.bits; bit += 8) {
    const mask = r.bits - bit >= 8 ? 0xff : (0xff << (8 - (r.bits - bit))) & 0xff;
    if ((ip[bit / 8]! & mask) !== (r.bytes[bit / 8]! & mask)) return false;
  }
  return true;
}

/** Most specific first: the first match names the address. */
const IPV4: readonly Range[] = [
  range("255.255.255.255/32", "the broadcast address"),
  range("0.0.0.0/8", "an unspecified address"),
  range("10.0.0.0/8", "a private address"),
  range("100.64.0.0/10", "a shared (carrier-grade NAT) address"),
  range("127.0.0.0/8", "a loopback address"),
  range("169.254.0.0/16", "a link-local address (cloud metadata lives there)"),
  range("172.16.0.0/12", "a private address"),
  range("192.0.0.0/24", "a reserved address"),
  range("192.0.2.0/24", "a documentation address"),
  range("192.88.99.0/24", "a reserved address"),
  range("192.168.0.0/16", "a private address"),
  range("198.18.0.0/15", "a benchmarking address"),
  range("198.51.100.0/24", "a documentation address"),
  range("203.0.113.0/24", "a documentation address"),
  range("224.0.0.0/4", "a multicast address"),
  range("240.0.0.0/4", "a reserved address"),
];

/** IPv6 prefixes that carry an IPv4 address, and the byte it starts at. */
const EMBEDDING: readonly { range: Range; at: number }[] = [
  { range: range("::ffff:0:0/96", "an IPv4-mapped address"), at: 12 },
  { range: range("::ffff:0:0:0/96", "an IPv4-translated address"), at: 12 },
  { range: range("64:ff9b::/96", "a NAT64 address"), at: 12 },
  { range: range("2002::/16", "a 6to4 address"), at: 2 },
];

const IPV6: readonly Range[] = [
  range("::/128", "an unspecified address"),
  range("::1/128", "a loopback address"),
  range("::/96", "an IPv4-compatible address (deprecated)"),
  range("64:ff9b:1::/48", "a local-use NAT64 address"),
  range("100::/64", "a discard-only address"),
  range("2001::/23", "a reserved address"),
  range("2001:db8::/32", "a documentation address"),
  range("3fff::/20", "a documentation address"),
  range("fc00::/7", "a unique-local address"),
  range("fe80::/10", "a link-local address"),
  range("fec0::/10", "a site-local address (deprecated)"),
  range("ff00::/8", "a multicast address"),
];

/** Only global unicast (2000::/3) is reachable; anything else not listed above is reserved. */
const GLOBAL_UNICAST = range("2000::/3", "");

/** Why `ip` may not be reached (e.g. "a loopback address"), or null for a public address. */
export function forbiddenAddress(ip: IpBytes): string | null {
  if (ip.length === 4) return IPV4.find((r) => inRange(ip, r))?.what ?? null;
  for (const { range: r, at } of EMBEDDING) {
    if (!inRange(ip, r)) continue;
    const v4 = ip.slice(at, at + 4);
    const why = forbiddenAddress(v4);
    return why === null ? null : `${r.what} of ${formatIp(v4)}, ${why}`;
  }
  const listed = IPV6.find((r) => inRange(ip, r));
  if (listed) return listed.what;
  return inRange(ip, GLOBAL_UNICAST) ? null : "a reserved address";
}
