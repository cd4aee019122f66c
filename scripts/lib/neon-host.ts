/**
 * What a connection string's host says about a Neon database: its endpoint, whether it is the
 * pooled (`-pooler`) host, and its region, with the Durable Object location hints near that region
 * (docs/deploy.md, "Location hint"). A host that is not Neon's says nothing.
 */
import type { LOCATION_HINTS } from "../../src/config/env";

export type LocationHint = (typeof LOCATION_HINTS)[number];

/**
 * Neon's regions (ids as its console and API name them) and the hints of the Cloudflare regions
 * nearest each, the first one preferred. Azure regions are deprecated by Neon but still parsed.
 */
export const NEON_REGION_HINTS: Readonly<Record<string, readonly LocationHint[]>> = {
  "aws-us-east-1": ["enam"],
  "aws-us-east-2": ["enam"],
  "aws-us-west-2": ["wnam"],
  "aws-sa-east-1": ["sam"],
  "aws-eu-central-1": ["weur"],
  "aws-eu-west-2": ["weur"],
  "aws-ap-southeast-1": ["apac"],
  "aws-ap-southeast-2": ["oc", "apac"],
  "azure-eastus2": ["enam"],
  "azure-westus3": ["wnam"],
  "azure-gwc": ["weur"],
  "azure-germanywestcentral": ["weur"],
};

export interface NeonHost {
  host: string;
  /** The compute endpoint (`ep-...`), the same for the pooled and the direct host. */
  endpoint: string;
  /** The `-pooler` host: PgBouncer in transaction mode. */
  pooled: boolean;
  /** e.g. `aws-us-east-2`. */
  region: string;
  /** The hints near the region; empty for a region this table does not know yet. */
  hints: readonly LocationHint[];
}

// ep-cool-darkness-a1b2c3d4[-pooler].us-east-2.aws.neon.tech
const NEON_HOST = /^(ep-[a-z0-9-]+?)(-pooler)?\.([a-z0-9-]+)\.(aws|azure)\.neon\.tech$/;

/** The Neon facts of a connection string's host, or null when it is not a Neon host (or not a URL). */
export function neonHost(connectionString: string): NeonHost | null {
  const host = hostOf(connectionString);
  const match = host === null ? null : NEON_HOST.exec(host);
  if (!host || !match) return null;
  const region = `${match[4]}-${match[3]}`;
  return { host, endpoint: match[1] as string, pooled: match[2] !== undefined, region, hints: NEON_REGION_HINTS[region] ?? [] };
}

/** The lowercase host of a connection string; null when it does not parse. */
export function hostOf(connectionString: string): string | null {
  try {
    return new URL(connectionString).hostname.toLowerCase() || null;
  } catch {
    return null;
  }
}

/** A connection string without its password, for logs and messages. */
export function redacted(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "(not a URL)";
  }
}
