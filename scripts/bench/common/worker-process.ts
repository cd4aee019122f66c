/**
 * A worker under wrangler's local dev server, as the stream benches start it, and the workerd
 * process that runs it.
 *
 * Two ways, both with the root's wrangler 4.86.0 and its workerd:
 *  - `startWorkerProcess` (default): `unstable_startWorker` with the inspector off, in a child
 *    process (serve-worker.ts). Every baseline and, unless `--inspector`, chatd run this way.
 *  - `startWorkerCli`: the `wrangler dev` CLI with the flags of scripts/lib/spawn-wrangler.ts, as
 *    `npm run dev`, the e2e tests and bench:turn run chatd. The CLI keeps a DevTools session with
 *    Network.enable on the worker, so every chunk of every subrequest body (the model's SSE stream,
 *    the Neon driver's WebSocket to the proxy) becomes an inspector event forwarded to wrangler's
 *    Node process (scripts/bench/relay/README.md, "Pitfalls").
 *
 * Both bundle with esbuild in watch mode whatever `dev.watch` says, and restart workerd when a
 * source changes: chatd is therefore served from a snapshot of its sources (session.ts), and
 * `checkAlive` tells a run that its workerd was replaced.
 *
 * Either way there are two workerd processes: wrangler's dev proxy on `port`, and the worker's own
 * on a random loopback port. The benches connect to the worker's own (`directOrigin`), as the
 * relay bench does for its baseline, and read the memory and CPU of its process (`workerPid`).
 */
import { dirname } from "node:path";
import { freePort } from "../../lib/free-port";
import { hyperdriveLocalEnv } from "../../lib/hyperdrive-local";
import { log } from "../../lib/log";
import { ROOT_DIR } from "../../lib/paths";
import { quietInspector } from "../../lib/quiet-inspector";
import { spawnWrangler, varArgs, wranglerDevArgs } from "../../lib/spawn-wrangler";
import { cmdline, comm, descendants, listeningPorts } from "./proc";

export interface WorkerProcess {
  name: string;
  /** wrangler's dev proxy. */
  origin: string;
  /** The worker's own workerd, without the proxy hop. */
  directOrigin: string;
  /** The workerd process that runs the worker (and its Durable Objects). */
  workerPid: number;
  /** Every other process of this dev server (wrangler's Node process, the proxy's workerd). */
  helperPids: number[];
  /** "startWorker, inspector off" or "wrangler dev CLI, inspector on". */
  mode: string;
  /** The DevTools WebSocket of wrangler's inspector proxy, when the inspector is on. */
  inspectorUrl?: string;
  /** Throws if the worker's workerd exited or was replaced (a reload) since it was located. */
  checkAlive(): void;
  stop(): Promise<void>;
}

export interface WorkerProcessOptions {
  name: string;
  /** Absolute path of the worker's wrangler.toml. */
  config: string;
  vars: Record<string, string>;
  persistTo: string;
  logFile: string;
  /** A path that answers 200 once the worker is up (e.g. /health). */
  healthPath: string;
  /**
   * The caller reads the heap through the inspector. startWorker: turn the inspector on (it brings
   * the Network.enable tax back); the CLI: leave its one seat free.
   */
  inspector?: boolean;
}

export async function startWorkerProcess(opts: WorkerProcessOptions): Promise<WorkerProcess> {
  const port = await freePort();
  const inspectorPort = opts.inspector ? await freePort() : undefined;
  const args = [
    "--import",
    "tsx",
    `${ROOT_DIR}scripts/bench/common/serve-worker.ts`,
    "--config",
    opts.config,
    "--port",
    String(port),
    "--persist-to",
    opts.persistTo,
    ...(inspectorPort ? ["--inspector-port", String(inspectorPort)] : []),
    ...varArgs(opts.vars),
  ];
  if (!inspectorPort) return spawnDevServer(opts, port, args, "startWorker, inspector off");
  const worker = await spawnDevServer(opts, port, args, "startWorker, inspector on");
  return { ...worker, inspectorUrl: `ws://127.0.0.1:${inspectorPort}/ws` };
}

/**
 * chatd under the `wrangler dev` CLI, inspector on: the flags of scripts/lib/spawn-wrangler.ts (as
 * `npm run dev`, the e2e tests and bench:turn run it), with `--config` pointing at the snapshot.
 */
export async function startWorkerCli(opts: WorkerProcessOptions): Promise<WorkerProcess> {
  const port = await freePort();
  const inspectorPort = await freePort();
  const args = wranglerDevArgs({ config: opts.config, port, inspectorPort, persistTo: opts.persistTo, vars: opts.vars });
  const worker = await spawnDevServer(opts, port, args, "wrangler dev CLI, inspector on");
  // As for `npm run dev`: the seat is held so that the CLI's proxy hoards no event per subrequest
  // chunk, and CHATD_CPU_PROFILE=FILE profiles the worker (quiet-inspector.ts).
  const inspector = opts.inspector ? undefined : await quietInspector(inspectorPort);
  const stop = async () => {
    await inspector?.close();
    await worker.stop();
  };
  return { ...worker, stop, inspectorUrl: `ws://127.0.0.1:${inspectorPort}/ws` };
}

async function spawnDevServer(opts: WorkerProcessOptions, port: number, args: string[], mode: string): Promise<WorkerProcess> {
  // A bench must never leave a workerd behind to share the cores with the next one.
  const wrangler = spawnWrangler({
    args,
    cwd: dirname(opts.config),
    logFile: opts.logFile,
    signalOnExit: "SIGKILL",
    // chatd's [[hyperdrive]] bindings need a local database, or wrangler refuses to start.
    env: hyperdriveLocalEnv(opts.vars.DATABASE_URL),
  });
  const stop = async () => {
    await wrangler.stop();
    log("info", "bench_worker_stopped", { pid: wrangler.child.pid });
  };
  const origin = `http://127.0.0.1:${port}`;
  try {
    await wrangler.waitForHealth(`${origin}${opts.healthPath}`);
    const found = await locate(wrangler.pid, port, opts.healthPath);
    const checkAlive = () => {
      // wrangler's bundler watches the worker's sources and restarts workerd on a change.
      if (comm(found.workerPid) !== "workerd" || !listeningPorts(found.workerPid).includes(Number(new URL(found.directOrigin).port)))
        throw new Error(`${opts.name}: workerd ${found.workerPid} is gone or restarted (see ${opts.logFile})`);
    };
    return { name: opts.name, origin, ...found, mode, stop, checkAlive };
  } catch (err) {
    await stop();
    throw new Error(`${opts.name}: ${err instanceof Error ? err.message : String(err)} (log: ${opts.logFile})`);
  }
}

/** The two workerd processes below `root`: the proxy listens on `port`; the worker's own answers `healthPath`. */
async function locate(
  root: number,
  port: number,
  healthPath: string,
): Promise<Pick<WorkerProcess, "directOrigin" | "workerPid" | "helperPids">> {
  const all = descendants(root);
  const workerds = all.filter((pid) => comm(pid) === "workerd");
  const isProxy = (pid: number) => cmdline(pid).includes(`--socket-addr=entry=127.0.0.1:${port}`);
  const workerPid = workerds.find((pid) => !isProxy(pid));
  if (workerPid === undefined || !workerds.some(isProxy)) throw new Error("the dev server's two workerd processes were not found");
  // With the inspector the worker's workerd also listens on inspector and debug ports.
  for (const p of listeningPorts(workerPid)) {
    const candidate = `http://127.0.0.1:${p}`;
    if (await answers(`${candidate}${healthPath}`)) {
      return { directOrigin: candidate, workerPid, helperPids: [root, ...all.filter((pid) => pid !== workerPid)] };
    }
  }
  throw new Error(`no port of workerd ${workerPid} answers ${healthPath}`);
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}
