/**
 * The one way the scripts and the tests start wrangler's local dev server: `wrangler dev` (the CLI)
 * for the dev command, the e2e tests and the benches' `--inspector` mode, or a script that calls
 * wrangler's startWorker (the benches' serve-worker.ts). Always `node <script>`, never through npx,
 * and in a process group of its own: stopping it, or a crash test's SIGKILL to `-pid`, reaches
 * wrangler's Node process and both workerd processes at once (npx would orphan workerd).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { DATA_DIR, ROOT_DIR } from "./paths";

const READY_TIMEOUT_MS = 150_000;
const STOP_GRACE_MS = 5_000;

/** wrangler's CLI, the root's pinned version. */
export const WRANGLER_CLI = `${ROOT_DIR}node_modules/wrangler/bin/wrangler.js`;

export interface WranglerDevFlags {
  /** Another wrangler.toml than the one in the working folder (a bench's snapshot of chatd). */
  config?: string;
  port: number;
  inspectorPort: number;
  persistTo: string;
  vars: Record<string, string>;
  /** Further flags of `wrangler dev`, before the vars. */
  extra?: string[];
}

/** `node` arguments of `wrangler dev` on loopback, with its state in `persistTo` and no interactive session. */
export function wranglerDevArgs(flags: WranglerDevFlags): string[] {
  return [
    WRANGLER_CLI,
    "dev",
    ...(flags.config ? ["--config", flags.config] : []),
    "--ip",
    "127.0.0.1",
    "--port",
    String(flags.port),
    "--inspector-port",
    String(flags.inspectorPort),
    "--persist-to",
    flags.persistTo,
    "--show-interactive-dev-session=false",
    ...(flags.extra ?? []),
    ...varArgs(flags.vars),
  ];
}

/** `--var KEY:VALUE` for each var, as both the CLI and serve-worker.ts read them. */
export const varArgs = (vars: Record<string, string>): string[] =>
  Object.entries(vars).flatMap(([key, value]) => ["--var", `${key}:${value}`]);

export interface SpawnWranglerOptions {
  /** What `node` runs: wranglerDevArgs(...), or a script that starts wrangler and its arguments. */
  args: string[];
  cwd: string;
  /** Where wrangler's own output goes (appended); it is noisy, so a file. */
  logFile: string;
  /** Stream that output to our stderr as well (the dev command). */
  echo?: boolean;
  /**
   * What the group gets if this process exits without stopping it ('exit' handlers run
   * synchronously, whoever calls process.exit): SIGTERM lets wrangler end workerd itself; the
   * benches, which must never leave a workerd sharing the cores, SIGKILL.
   */
  signalOnExit: "SIGTERM" | "SIGKILL";
  /** Environment variables besides ours and this process's (the Hyperdrive bindings' local database). */
  env?: Record<string, string>;
}

export interface WranglerProcess {
  readonly child: ChildProcess;
  /** The group's leader: `process.kill(-pid, …)` reaches every process of this dev server. */
  readonly pid: number;
  hasExited(): boolean;
  /** Resolves once `url` answers 2xx; throws if the process exits first or after 150 s. */
  waitForHealth(url: string): Promise<void>;
  /** SIGTERM to the group, SIGKILL after a grace, then SIGKILL once more (workerd may outlive wrangler by a moment). */
  stop(): Promise<void>;
}

export function spawnWrangler(opts: SpawnWranglerOptions): WranglerProcess {
  const child = spawn(process.execPath, opts.args, {
    cwd: opts.cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      NO_COLOR: "1",
      // wrangler's own logs and dev registry stay in .data/, not the home folder.
      XDG_CONFIG_HOME: `${DATA_DIR}/wrangler-home`,
      ...opts.env,
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
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const onOurExit = () => killGroup(opts.signalOnExit);
  process.on("exit", onOurExit);

  return {
    child,
    pid: child.pid ?? -1,
    hasExited: () => exited,
    waitForHealth: (url) => waitForHealth(url, () => exited),
    async stop() {
      process.off("exit", onOurExit);
      if (!exited) {
        killGroup("SIGTERM");
        const timer = setTimeout(() => killGroup("SIGKILL"), STOP_GRACE_MS);
        await exitPromise;
        clearTimeout(timer);
      }
      killGroup("SIGKILL");
    },
  };
}

async function waitForHealth(url: string, hasExited: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = "no answer";
  while (Date.now() < deadline) {
    if (hasExited()) throw new Error("exited before it was ready");
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      const body = await res.text();
      if (res.ok) return;
      last = `${res.status} ${body}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`not healthy within ${READY_TIMEOUT_MS / 1000} s: ${last}`);
}
