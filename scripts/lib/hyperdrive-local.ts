/**
 * Hyperdrive under `wrangler dev` (docs/deploy.md "Hyperdrive"): there is no Hyperdrive service
 * locally, and wrangler refuses to start a Worker with a [[hyperdrive]] binding until it is told
 * which database the binding stands for. It reads that from
 * CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_<BINDING>; workerd then connects straight to it.
 */

/** The bindings of wrangler.toml's [[hyperdrive]] entries (src/http/request-db.ts reads them). */
export const HYPERDRIVE_BINDINGS = ["HYPERDRIVE_UNCACHED", "HYPERDRIVE_CACHED"] as const;
export type HyperdriveBindingName = (typeof HYPERDRIVE_BINDINGS)[number];

/**
 * Where each binding's connections go: one Postgres for both, or one per binding (a test that
 * tells which binding a route used). The environment that says so; none without a URL.
 */
export type HyperdriveLocal = string | Readonly<Record<HyperdriveBindingName, string>>;

export function hyperdriveLocalEnv(local: HyperdriveLocal | undefined): Record<string, string> {
  if (local === undefined || local === "") return {};
  return Object.fromEntries(
    HYPERDRIVE_BINDINGS.map((binding) => [
      `CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_${binding}`,
      typeof local === "string" ? local : local[binding],
    ]),
  );
}
