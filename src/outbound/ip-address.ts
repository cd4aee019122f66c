/**
 * IP address literals as bytes: 4 for IPv4, 16 for IPv6. Only canonical spellings are read here:
 * a URL's hostname has already been through the WHATWG parser, which turns every IPv4 spelling
 * (decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short `127.1`) into a dotted quad and
 * brackets IPv6, and a DNS answer is a dotted quad or RFC 5952 text.
 */

export type IpBytes = Uint8Array;

/** `a.b.c.d`, each a decimal 0-255 without a leading zero; null otherwise. */
export function parseIPv4(text: string): IpBytes | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (const [i, part] of parts.entries()) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    bytes[i] = n;
  }
  return bytes;
}

/** Eight hex groups, `::` for one run of zeros, optionally ending in a dotted quad; null otherwise. */
export function parseIPv6(text: string): IpBytes | null {
  let rest = text.toLowerCase();
  const lastColon = rest.lastIndexOf(":");
  if (lastColon === -1) return null;
  let tail: number[] = [];
  if (rest.slice(lastColon + 1).includes(".")) {
    const quad = parseIPv4(rest.slice(lastColon + 1));
    if (!quad) return null;
    tail = [(quad[0]! << 8) | quad[1]!, (quad[2]! << 8) | quad[3]!];
    rest = rest.slice(0, lastColon + 1);
    if (!rest.endsWith("::")) rest = rest.slice(0, -1);
  }
  const halves = rest.split("::");
  if (halves.length > 2) return null;
  const words = (half: string) =>
    (half === "" ? [] : half.split(":")).map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? Number.parseInt(g, 16) : Number.NaN));
  const head = words(halves[0]!);
  const back = halves.length === 2 ? words(halves[1]!) : [];
  if ([...head, ...back].some(Number.isNaN)) return null;
  const count = head.length + back.length + tail.length;
  if (halves.length === 2 ? count > 7 : count !== 8) return null;
  const all = [...head, ...Array<number>(8 - count).fill(0), ...back, ...tail];
  const bytes = new Uint8Array(16);
  for (const [i, word] of all.entries()) {
    bytes[i * 2] = word >> 8;
    bytes[i * 2 + 1] = word & 0xff;
  }
  return bytes;
}

/** A dotted quad or bracketed/bare IPv6 literal, else null (a name). */
export function parseIpLiteral(host: string): IpBytes | null {
  if (host.startsWith("[") && host.endsWith("]")) return parseIPv6(host.slice(1, -1));
  if (host.includes(":")) return parseIPv6(host);
  return parseIPv4(host);
}

/** Dotted quad, or RFC 5952 text (lowercase, the longest run of two or more zero groups as `::`). */
export function formatIp(bytes: IpBytes): string {
  if (bytes.length === 4) return bytes.join(".");
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push((bytes[i]! << 8) | bytes[i + 1]!);
  let best = { at: -1, length: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = (ws: number[]) => ws.map((w) => w.toString(16)).join(":");
  if (best.at === -1) return hex(words);
  return `${hex(words.slice(0, best.at))}::${hex(words.slice(best.at + best.length))}`;
}
