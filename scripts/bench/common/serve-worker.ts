/**
 * Child process of worker-process.ts: wrangler's own `unstable_startWorker` for one wrangler.toml
 * with the DevTools inspector off, as scripts/bench/relay/devserver.mjs runs its baseline (same
 * wrangler, same workerd, same dev proxy as `wrangler dev`, without the CLI's Network.enable
 * session that turns every subrequest chunk into an inspector event).
 *
 *   node --import tsx scripts/bench/common/serve-worker.ts --config PATH --port P --persist-to DIR [--var K:V ...] [--inspector-port I]
 *
 * Prints `ready on <url>` when the worker is up; stops on SIGINT/SIGTERM.
 */
import { parseArgs } from "node:util";
import { unstable_startWorker } from "wrangler";

const { values } = parseArgs({
  options: {
    config: { type: "string" },
    port: { type: "string" },
    "persist-to": { type: "string" },
    /** Turn wrangler's inspector on, on this port (memory.ts --heap); costs the Network.enable tax. */
    "inspector-port": { type: "string" },
    var: { type: "string", multiple: true },
  },
});
if (!values.config || !values.port || !values["persist-to"]) throw new Error("--config, --port and --persist-to are required");

const bindings = Object.fromEntries(
  (values.var ?? []).map((kv) => {
    const i = kv.indexOf(":");
    return [kv.slice(0, i), { type: "plain_text" as const, value: kv.slice(i + 1) }];
  }),
);
const worker = await unstable_startWorker({
  config: values.config,
  bindings,
  // No build.nodejsCompatMode: since wrangler 4.1xx, startWorker derives it from the config's date
  // and flags, as the CLI does (miniflare no longer exports getNodeCompat).
  dev: {
    inspector: values["inspector-port"] ? { hostname: "127.0.0.1", port: Number(values["inspector-port"]) } : false,
    watch: false,
    logLevel: (process.env.BENCH_WRANGLER_LOG as "warn" | undefined) ?? "warn",
    persist: values["persist-to"],
    server: { hostname: "127.0.0.1", port: Number(values.port) },
  },
});
await worker.ready;
process.stdout.write(`ready on ${await worker.url}\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await worker.dispose().catch(() => {});
  process.exit(0);
};
// Importing wrangler installs listeners that exit at once; ours must be the only ones.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.removeAllListeners(signal);
  process.on(signal, () => void stop());
}
