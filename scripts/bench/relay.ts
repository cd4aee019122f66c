/**
 * Issue 6, P1: one model stream to many stream sockets of one chat, against a bare Durable Object
 * broadcasting the same parts (the relay bench's baseline), measured in the same run. See
 * docs/bench.md.
 *
 *   tsx scripts/bench/relay.ts [--clients 200] [--tokens 5000] [--reps 3] [--modes unpaced,paced] [--inspector] [--json FILE]
 *
 * Starts the stack and chatd (startWorker, inspector off, like the baseline; `--inspector`: the
 * `wrangler dev` CLI), the relay bench's baseline worker (scripts/bench/relay/baseline), then runs
 * scripts/bench/relay/relay.mjs once per (mode, rep, target) against the running servers with
 * --url/--pid/--fake-port, alternating the targets' order rep by rep, and summarizes its JSON.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { freePort } from "../lib/free-port";
import { startOtlpReceiver } from "../lib/otlp-receiver";
import { log } from "../lib/log";
import { ROOT_DIR } from "../lib/paths";
import { parseBenchArgs, SESSION_FLAGS, UsageError, wholeNumberOption } from "./common/parse-bench-args";
import { machineLine, runBench, type Session } from "./common/session";
import { count, fixed, median, ratio, verdict } from "./common/stats";
import type { WorkerProcess } from "./common/worker-process";

const RELAY_DIR = `${ROOT_DIR}scripts/bench/relay`;
const TARGETS = ["baseline", "chatd"] as const;
type Target = (typeof TARGETS)[number];
/** P1's targets: chatd's unpaced throughput at least this share of the baseline's; paced p99 at most this multiple. */
const MIN_THROUGHPUT_RATIO = 0.8;
const MAX_P99_RATIO = 1.25;

const USAGE = `usage: tsx scripts/bench/relay.ts [options]
  --clients N        stream sockets on the chat (default 200)
  --tokens N         parts of the timed turn (default 5000)
  --reps N           timed turns per target and mode (default 3)
  --warmup N         tokens of relay.mjs's untimed turn before each timed one (default 500; 0: none)
  --modes LIST       unpaced (the model as fast as it can), paced (--delay-ms apart); default both
  --delay-ms N       the paced mode's gap between tokens (default 5)
  --inspector        run chatd under the \`wrangler dev\` CLI (inspector on) instead of startWorker
  --timeout S        seconds per turn (default 180)
  --json FILE        every turn's figures (relay.mjs's), the summary, options and versions
  --worktree         run chatd from the working tree (default: HEAD's committed sources)
  --export           chatd exports its turn spans and metrics to a local OTLP receiver (tracing
                     overhead: compare the ratios of a run with and one without)
  --keep             keep the run folder (worker logs)`;

interface Options {
  clients: number;
  tokens: number;
  reps: number;
  warmup: number;
  modes: { name: string; delayMs: number }[];
  inspector: boolean;
  timeout: number;
  json: string | undefined;
  keep: boolean;
  worktree: boolean;
  export: boolean;
}

/** The fields of one relay.mjs turn this wrapper reads (relay.mjs's README defines them). */
interface RelayRun {
  complete: number;
  timedOut: boolean;
  errors: string[];
  duplicates: number;
  reordered: number;
  minTokens: number;
  ttfcMs: number;
  firstAfterModelMs: number;
  perClientTokS: number;
  totalTokS: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  lastChunkMs: number;
  framesPerClient: number;
  bytesPerClient: number;
  fakeStreamMs: number;
  workerdRssBeforeMiB: number;
  workerdPeakMiB: number;
  workerdCpuS: number;
  driverCpuS: number;
}

interface TurnRecord extends RelayRun {
  /** Parts delivered to all sockets ÷ (trigger → the last part anywhere): relay.mjs's total, with the turn's start included. */
  fromTriggerPartsS: number;
  mode: string;
  delayMs: number;
  rep: number;
  target: Target;
  order: string;
}

function parseOptions(): Options {
  return parseBenchArgs(
    USAGE,
    {
      ...SESSION_FLAGS,
      clients: { type: "string", default: "200" },
      tokens: { type: "string", default: "5000" },
      reps: { type: "string", default: "3" },
      warmup: { type: "string", default: "500" },
      modes: { type: "string", default: "unpaced,paced" },
      "delay-ms": { type: "string", default: "5" },
      inspector: { type: "boolean", default: false },
      timeout: { type: "string", default: "180" },
      export: { type: "boolean", default: false },
    },
    (values) => {
      const int = wholeNumberOption;
      const delayMs = int("delay-ms", values["delay-ms"], 1, 1000);
      const modes = values.modes.split(",").map((m) => {
        if (m === "unpaced") return { name: m, delayMs: 0 };
        if (m === "paced") return { name: m, delayMs };
        throw new UsageError(`--modes takes unpaced and/or paced, got "${m}"`);
      });
      return {
        clients: int("clients", values.clients, 1, 2000),
        tokens: int("tokens", values.tokens, 1, 100_000),
        reps: int("reps", values.reps, 1, 100),
        warmup: int("warmup", values.warmup, 0, 100_000),
        modes,
        inspector: values.inspector,
        timeout: int("timeout", values.timeout, 10, 3600),
        json: values.json,
        keep: values.keep,
        worktree: values.worktree,
        export: values.export,
      };
    },
  );
}

/** One relay.mjs run: one target, one timed turn (after its own warm-up turn); its stderr becomes progress. */
async function relayTurn(
  session: Session,
  opts: Options,
  server: WorkerProcess,
  target: Target,
  delayMs: number,
  fakePort: number,
  token: string,
): Promise<RelayRun> {
  const json = `${session.dir}/relay-${Date.now()}-${target}.json`;
  const args = [
    `${RELAY_DIR}/relay.mjs`,
    ...["--target", target, "--url", server.directOrigin, "--pid", String(server.workerPid), "--fake-port", String(fakePort)],
    ...["--clients", String(opts.clients), "--tokens", String(opts.tokens), "--reps", "1", "--warmup", String(opts.warmup)],
    ...["--delay-ms", String(delayMs), "--timeout", String(opts.timeout), "--json", json],
  ];
  const child = spawn(process.execPath, args, {
    cwd: RELAY_DIR,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, CHATD_TOKEN: token },
  });
  session.defer(async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
  });
  for await (const line of createInterface({ input: child.stderr })) if (line.trim()) log("info", "relay", { target, line });
  const code = child.exitCode ?? (await new Promise<number | null>((resolve) => child.once("exit", resolve)));
  if (code !== 0 || !existsSync(json)) throw new Error(`relay.mjs --target ${target} exited with ${code}`);
  const run = (JSON.parse(readFileSync(json, "utf8")) as { runs: RelayRun[] }).runs[0];
  if (!run) throw new Error(`relay.mjs --target ${target} recorded no turn`);
  return run;
}

/** Whether scripts/bench/relay/node_modules holds exactly the versions its package.json pins. */
function relayDependenciesInstalled(): boolean {
  const pinned = (JSON.parse(readFileSync(`${RELAY_DIR}/package.json`, "utf8")) as { dependencies: Record<string, string> }).dependencies;
  return Object.entries(pinned).every(([name, version]) => {
    const installed = `${RELAY_DIR}/node_modules/${name}/package.json`;
    return existsSync(installed) && (JSON.parse(readFileSync(installed, "utf8")) as { version: string }).version === version;
  });
}

async function main(session: Session, opts: Options): Promise<number> {
  if (!relayDependenciesInstalled()) {
    // The relay bench keeps its own pinned dependencies (the peer's agents packages among them);
    // an install from before a bump of its package.json is replaced.
    log("info", "bench_install", { dir: RELAY_DIR });
    execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--prefix", RELAY_DIR], { stdio: ["ignore", process.stderr, process.stderr] });
  }
  const env = session.environment();
  log("info", "bench_start", { bench: "relay", ...opts, run_dir: session.dir, ...env });
  const { stack, seeded } = await session.startStack();
  // relay.mjs runs the fake model (scripts/fake-model/, whose `/stamp` tokens carry their write time) on this port.
  const fakePort = await freePort();
  const receiver = opts.export ? await startOtlpReceiver() : undefined;
  if (receiver) session.defer(() => receiver.close());
  const servers: Record<Target, WorkerProcess> = {
    chatd: await session.startChatd(stack, {
      cli: opts.inspector,
      ...(receiver ? { vars: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } } : {}),
    }),
    baseline: await session.startWorker(
      "baseline",
      `${RELAY_DIR}/baseline/wrangler.toml`,
      { MODEL_BASE_URL: `http://127.0.0.1:${fakePort}/v1` },
      "/health",
    ),
  };

  const turns: TurnRecord[] = [];
  for (const mode of opts.modes) {
    for (let rep = 1; rep <= opts.reps && !session.interrupted; rep++) {
      const order = rep % 2 === 1 ? TARGETS : ([...TARGETS].reverse() as Target[]);
      for (const target of order) {
        const run = await relayTurn(session, opts, servers[target], target, mode.delayMs, fakePort, seeded.token);
        servers[target].checkAlive();
        if (run.complete !== opts.clients || run.timedOut || run.errors.length > 0 || run.duplicates > 0)
          log("warn", "bench_incomplete_turn", {
            target,
            mode: mode.name,
            rep,
            complete: run.complete,
            timedOut: run.timedOut,
            errors: run.errors,
          });
        const fromTriggerPartsS = (opts.clients * opts.tokens) / (run.lastChunkMs / 1000);
        turns.push({ mode: mode.name, delayMs: mode.delayMs, rep, target, order: order.join(","), fromTriggerPartsS, ...run });
      }
    }
  }
  if (session.interrupted) return 130;

  const figures = summarize(turns, opts);
  const heading =
    `### Relay (P1): ${opts.clients} stream sockets on one chat, ${opts.tokens} parts per turn, medians of ${opts.reps} turns per row\n\n` +
    `${machineLine(env, opts.worktree)}. chatd: ${servers.chatd.mode}; baseline: ${servers.baseline.mode}; clients connect to each worker's own workerd ` +
    `(not through wrangler's dev proxy), no permessage-deflate` +
    (receiver
      ? `; chatd exports traces to a local OTLP receiver (${receiver.spans.filter((x) => x.name === "chat_turn").length} chat_turn spans received).`
      : ".");
  process.stdout.write(`${heading}\n\n${markdown(figures, opts)}\n`);
  if (opts.json) {
    writeFileSync(opts.json, `${JSON.stringify({ options: opts, environment: env, modes: figures, turns }, null, 2)}\n`);
    log("info", "bench_json_written", { file: opts.json });
  }
  return 0;
}

const COLUMNS: [string, keyof TurnRecord, (x: number) => string][] = [
  ["parts/s total", "totalTokS", count],
  ["parts/s from trigger", "fromTriggerPartsS", count],
  ["parts/s per socket", "perClientTokS", count],
  ["p50 ms", "p50Ms", (x) => fixed(x)],
  ["p99 ms", "p99Ms", (x) => fixed(x)],
  ["first part ms", "ttfcMs", (x) => fixed(x)],
  ["first part after the model's ms", "firstAfterModelMs", (x) => fixed(x)],
  ["last part ms", "lastChunkMs", (x) => fixed(x, 0)],
  ["frames per socket", "framesPerClient", (x) => fixed(x, 0)],
  ["workerd CPU s", "workerdCpuS", (x) => fixed(x, 2)],
  ["driver CPU s", "driverCpuS", (x) => fixed(x, 2)],
];

interface ModeFigures {
  mode: string;
  delayMs: number;
  medians: Record<Target, Record<string, number>>;
  complete: Record<Target, string>;
  ratios: Record<string, number>;
}

function summarize(turns: TurnRecord[], opts: Options): ModeFigures[] {
  return opts.modes.map((mode) => {
    const of = (target: Target) => turns.filter((t) => t.mode === mode.name && t.target === target);
    const mediansOf = (target: Target): Record<string, number> => ({
      ...Object.fromEntries(COLUMNS.map(([, key]) => [key, median(of(target).map((t) => t[key] as number))])),
      peakGrowthMiB: median(of(target).map((t) => t.workerdPeakMiB - t.workerdRssBeforeMiB)),
    });
    const medians: Record<Target, Record<string, number>> = { baseline: mediansOf("baseline"), chatd: mediansOf("chatd") };
    const completeOf = (target: Target) => `${Math.min(...of(target).map((t) => t.complete))}/${opts.clients}`;
    const complete: Record<Target, string> = { baseline: completeOf("baseline"), chatd: completeOf("chatd") };
    const ratios = Object.fromEntries(COLUMNS.map(([, key]) => [key, medians.chatd[key]! / medians.baseline[key]!]));
    return { mode: mode.name, delayMs: mode.delayMs, medians, complete, ratios };
  });
}

function markdown(figures: ModeFigures[], opts: Options): string {
  const out: string[] = [];
  for (const f of figures) {
    out.push(`#### ${f.mode === "unpaced" ? "Unpaced (the model as fast as it can)" : `Paced (${f.delayMs} ms between tokens)`}\n`);
    out.push(`| target | complete | ${COLUMNS.map(([h]) => h).join(" | ")} | workerd peak − before MiB |`);
    out.push(`|${"---|".repeat(COLUMNS.length + 3)}`);
    for (const target of TARGETS) {
      const m = f.medians[target];
      out.push(
        `| ${target} | ${f.complete[target]} | ${COLUMNS.map(([, key, fmt]) => fmt(m[key]!)).join(" | ")} | ${fixed(m.peakGrowthMiB!, 0)} |`,
      );
    }
    out.push(`| chatd ÷ baseline | | ${COLUMNS.map(([, key]) => ratio(f.ratios[key]!)).join(" | ")} | |\n`);
  }
  const unpaced = figures.find((f) => f.mode === "unpaced");
  const paced = figures.find((f) => f.mode === "paced");
  out.push("| P1 figure | chatd ÷ baseline | target | |", "|---|---|---|---|");
  if (unpaced) {
    const r = unpaced.ratios.totalTokS!;
    out.push(
      `| delivered parts/s, unpaced, N=${opts.clients} | ${ratio(r)} | ≥ ${MIN_THROUGHPUT_RATIO}x | ${verdict(r >= MIN_THROUGHPUT_RATIO)} |`,
    );
  }
  if (paced) {
    const r = paced.ratios.p99Ms!;
    out.push(
      `| p99 part latency, paced ${paced.delayMs} ms, N=${opts.clients} | ${ratio(r)} | ≤ ${MAX_P99_RATIO}x | ${verdict(r <= MAX_P99_RATIO)} |`,
    );
    out.push(`| p50 part latency, paced ${paced.delayMs} ms (information) | ${ratio(paced.ratios.p50Ms!)} | | |`);
  }
  if (unpaced) out.push(`| p99 part latency, unpaced (queueing; information) | ${ratio(unpaced.ratios.p99Ms!)} | | |`);
  return out.join("\n");
}

const options = parseOptions();
await runBench({ keep: options.keep, worktree: options.worktree }, (session) => main(session, options));
