/**
 * The Worker bundled once, as `wrangler deploy --dry-run` bundles it, for a test run's many
 * `wrangler dev` starts: each start given the bundle (`--no-bundle`) skips running esbuild over the
 * whole tree again, about 2 of its 8 core-seconds on the 2-core CI machine.
 */
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { basename } from "node:path";
import { promisify } from "node:util";
import { log } from "./log";
import { ROOT_DIR } from "./paths";
import { WRANGLER_CLI } from "./spawn-wrangler";

const run = promisify(execFile);

/** Bundles the Worker from `entry` (wrangler.toml's `main` by default) into `outDir`, emptied first; the bundle's entry file. */
export async function bundleWorker(outDir: string, entry?: string): Promise<string> {
  const started = Date.now();
  rmSync(outDir, { recursive: true, force: true });
  try {
    await run(process.execPath, [WRANGLER_CLI, "deploy", ...(entry ? [entry] : []), "--dry-run", "--outdir", outDir], {
      cwd: ROOT_DIR,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    const output =
      err instanceof Error && "stderr" in err ? `${String(err.stderr)}${String((err as { stdout?: unknown }).stdout ?? "")}` : "";
    throw new Error(`bundling the Worker (wrangler deploy --dry-run) failed: ${output || String(err)}`);
  }
  log("info", "worker_bundled", { outDir, ms: Date.now() - started });
  // esbuild names the bundle after its entry file.
  return `${outDir}/${basename(entry ?? "index.ts").replace(/\.ts$/, ".js")}`;
}
