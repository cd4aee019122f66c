/**
 * Host names refused without asking DNS: names that mean this machine or a private network by
 * convention, where a local resolver (not the public one the guard asks) would answer. A name
 * whose public answer is private is caught by its addresses instead.
 */

const SUFFIXES: readonly { suffix: string; what: string }[] = [
  { suffix: "localhost", what: "a loopback name" },
  // metadata.google.internal, and the private zones of cloud networks.
  { suffix: "internal", what: "an internal name (cloud metadata and private networks)" },
  { suffix: "local", what: "a link-local (mDNS) name" },
  { suffix: "home.arpa", what: "a home network name" },
];

/** Why `hostname` (as `new URL(...).hostname` gives it) may not be reached, or null. */
export function reservedName(hostname: string): string | null {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  for (const { suffix, what } of SUFFIXES) {
    if (name === suffix || name.endsWith(`.${suffix}`)) return what;
  }
  // A bare label (`metadata`, `db`) is completed by the machine's search domains, not by DNS.
  if (!name.includes(".")) return "a single-label name";
  return null;
}
