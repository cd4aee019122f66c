/**
 * Issue 6, P1: one model stream to many stream sockets of one chat, against a bare Durable Object
 * broadcasting the same parts (the relay bench's baseline) and a bare Durable Object that calls
 * the model through the AI SDK as chatd does (bench:turn's bare turn), measured in the same run.
 * See docs/bench.md.
 *
 *   tsx scripts/bench/relay.ts [--clients 200] [--tokens 5000] [--reps 5] [--modes unpaced,paced] [--inspector] [--json FILE]
 *
 * Starts the stack and chatd (startWorker, inspector off, like the baseline; `--inspector`: the
 * `wrangler dev` CLI), the relay bench's baseline worker (scripts/bench/relay/baseline) and the bare
 * turn (scripts/bench/turn-latency/bare), then runs
 * scripts/bench/relay/relay.mjs once per (mode, rep, target) against the running servers with
 * --url/--pid/--fake-port, alternating the targets' order rep by rep, and summarizes its JSON.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { createInterface } from "node:readline";
import { FAIR_USE_OFF } from "../../test/support/fair-use-off";
import { freePort } from "../lib/free-port";
import { startOtlpReceiver } from "../lib/otlp-receiver";
import { log } from "../lib/log";
import { ROOT_DIR } from "../lib/paths";
import { parseBenchArgs, SESSION_FLAGS, UsageError, wholeNumberOption } from "./common/parse-bench-args";
import { machineLine, runBench, type Session } from "./common/session";
import { count, fixed, median, quantile, ratio, verdict } from "./common/stats";
import type { WorkerProcess } from "./common/worker-process";

const RELAY_DIR = `${ROOT_DIR}scripts/bench/relay`;
/** bench:turn's bare turn worker, the relay's `bare-turn` target. */
const BARE_TURN_DIR = `${ROOT_DIR}scripts/bench/turn-latency/bare`;
/**
 * The relay bench's reference (a bare Durable Object that parses the model's stream by hand); the
 * bare turn (a bare Durable Object that calls the model through the AI SDK's streamText, as chatd
 * does: what the SDK's pipeline costs per part); chatd at HEAD (or the working tree); and with
 * --compare chatd at another commit.
 */
const TARGETS = ["baseline", "bare-turn", "chatd", "before"] as const;
type Target = (typeof TARGETS)[number];
/** Issue 6's P1 target (unpaced throughput at least this share of the baseline's) and issue 37's. */
const MIN_THROUGHPUT_RATIO = 0.8;
const MAX_FIRST_PART_RATIO = 1.5;
const MAX_P99_RATIO = 1.25;
const MAX_CPU_RATIO = 1.1;
/** Memory growth during a paced turn: at most twice the baseline's plus this many MiB. */
const MEMORY_ALLOWANCE_MIB = 4;

const USAGE = `usage: tsx scripts/bench/relay.ts [options]
  --clients N        stream sockets on the chat (default 200)
  --tokens N         parts of the timed turn (default 5000)
  --reps N           rounds per mode: one timed turn per target each, in rotating order (default 5)
  --warmup N         tokens of relay.mjs's untimed turn before each timed one (default 500; 0: none)
  --modes LIST       unpaced (the model as fast as it can), paced (--delay-ms apart); default both
  --delay-ms N       the paced mode's gap between tokens (default 5)
  --compare REF      also run chatd at commit REF (its committed sources) as a third target, in the
                     same rounds: a before/after measurement that shares the machine's drift
  --inspector        run chatd under the \`wrangler dev\` CLI (inspector on) instead of startWorker
  --timeout S        seconds per turn (default 180)
  --json FILE        every turn's figures (relay.mjs's), the summary, options and versions
  --worktree         run chatd from the working tree (default: HEAD's committed sources)
  --export           chatd exports its turn spans and metrics to a local OTLP receiver (tracing
                     overhead: compare the ratios of a run with and one without)
  --keep             keep the run folder (worker logs)
  --report FILE      print the tables of an earlier run's --json FILE again, running nothing`;

interface Options {
  clients: number;
  tokens: number;
  reps: number;
  warmup: number;
  modes: { name: string; delayMs: number }[];
  compare: string | undefined;
  inspector: boolean;
  timeout: number;
  json: string | undefined;
  keep: boolean;
  worktree: boolean;
  export: boolean;
  report: string | undefined;
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
  /** workerd's RSS at its highest during the turn − just before it. */
  peakGrowthMiB: number;
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
      reps: { type: "string", default: "5" },
      warmup: { type: "string", default: "500" },
      modes: { type: "string", default: "unpaced,paced" },
      "delay-ms": { type: "string", default: "5" },
      compare: { type: "string" },
      inspector: { type: "boolean", default: false },
      timeout: { type: "string", default: "180" },
      export: { type: "boolean", default: false },
      report: { type: "string" },
    },
    (values) => {
      const int = wholeNumberOption;
      const delayMs = int("delay-ms", values["delay-ms"], 1, 1000);
      const modes = values.modes.split(",").map((m) => {
        if (m === "unpaced") return { name: m, delayMs: 0 };
        if (m === "paced") return { name: m, delayMs };
        throw new UsageError(`--modes takes unpaced and/or paced, got "${m}"`);
      });
      const compare = values.compare;
      if (compare !== undefined && !/^[\w./^~-]+$/.test(compare)) throw new UsageError(`--compare takes a commit, got "${compare}"`);
      return {
        clients: int("clients", values.clients, 1, 2000),
        tokens: int("tokens", values.tokens, 1, 100_000),
        reps: int("reps", values.reps, 1, 100),
        warmup: int("warmup", values.warmup, 0, 100_000),
        modes,
        compare,
        inspector: values.inspector,
        timeout: int("timeout", values.timeout, 10, 3600),
        json: values.json,
        keep: values.keep,
        worktree: values.worktree,
        export: values.export,
        report: values.report,
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
    // relay.mjs knows chatd's protocol as "chatd", whichever commit serves it.
    ...[
      "--target",
      target === "before" ? "chatd" : target,
      "--url",
      server.directOrigin,
      "--pid",
      String(server.workerPid),
      "--fake-port",
      String(fakePort),
    ],
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
  // Fair use off, as in the test suites that are not about it: the bench's sockets are all the
  // seeded owner's, on one chat, opened in a burst (the defaults allow 20 and rate-limit the opens).
  const chatdVars = { ...FAIR_USE_OFF, ...(receiver ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } : {}) };
  const servers: Partial<Record<Target, WorkerProcess>> = {
    chatd: await session.startChatd(stack, { cli: opts.inspector, vars: chatdVars }),
    ...(opts.compare
      ? { before: await session.startChatd(stack, { cli: opts.inspector, vars: chatdVars, label: "chatd-before", ref: opts.compare }) }
      : {}),
    baseline: await session.startWorker(
      "baseline",
      `${RELAY_DIR}/baseline/wrangler.toml`,
      { MODEL_BASE_URL: `http://127.0.0.1:${fakePort}/v1` },
      "/health",
    ),
    "bare-turn": await session.startWorker(
      "bare-turn",
      `${BARE_TURN_DIR}/wrangler.toml`,
      { MODEL_BASE_URL: `http://127.0.0.1:${fakePort}/v1` },
      "/health",
    ),
  };
  const targets = TARGETS.filter((t) => servers[t] !== undefined);
  const orders = rotations(targets);

  const turns: TurnRecord[] = [];
  const started = performance.now();
  const total = opts.modes.length * opts.reps * targets.length;
  for (const mode of opts.modes) {
    for (let rep = 1; rep <= opts.reps && !session.interrupted; rep++) {
      // Every target once per round, the order rotating round by round, so a drift in the
      // machine's load reaches each target alike and each round gives a ratio of its own.
      const order = orders[(rep - 1) % orders.length]!;
      const round: Partial<Record<Target, TurnRecord>> = {};
      for (const target of order) {
        const server = servers[target]!;
        const run = await relayTurn(session, opts, server, target, mode.delayMs, fakePort, seeded.token);
        server.checkAlive();
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
        // relay.mjs's record has its own `target` (the adapter) and `rep` (always 1): ours win.
        const turn: TurnRecord = {
          ...run,
          mode: mode.name,
          delayMs: mode.delayMs,
          rep,
          target,
          order: order.join(","),
          fromTriggerPartsS,
          peakGrowthMiB: run.workerdPeakMiB - run.workerdRssBeforeMiB,
        };
        turns.push(turn);
        round[target] = turn;
      }
      // Progress: this round's ratios, and how far the run is.
      const done = turns.length;
      const elapsedS = (performance.now() - started) / 1000;
      log("info", "bench_round", {
        mode: mode.name,
        round: `${rep}/${opts.reps}`,
        order: order.join(","),
        load: Number(loadavg()[0]!.toFixed(2)),
        ...Object.fromEntries(
          targets
            .filter((t) => t !== "baseline")
            .map((t) => [t, Object.fromEntries(SPREAD.map(([, key]) => [key, roundRatio(round, t, key)?.toFixed(2) ?? null]))]),
        ),
        turns: `${done}/${total}`,
        eta_s: Math.round((elapsedS / done) * (total - done)),
      });
    }
  }
  if (session.interrupted) return 130;

  const figures = summarize(turns, opts, targets);
  const heading =
    `### Relay (P1): ${opts.clients} stream sockets on one chat, ${opts.tokens} parts per turn, ${opts.reps} rounds per mode\n\n` +
    `${machineLine(env, opts.worktree)}${opts.compare ? `; "before" is chatd at ${opts.compare}` : ""}. chatd: ${servers.chatd!.mode}; baseline: ${servers.baseline!.mode}; ` +
    `each round runs every target once, in an order that rotates round by round; clients connect to each worker's own workerd ` +
    `(not through wrangler's dev proxy), no permessage-deflate` +
    (receiver
      ? `; chatd exports traces to a local OTLP receiver (${receiver.spans.filter((x) => x.name === "chat_turn").length} chat_turn spans received).`
      : ".");
  process.stdout.write(`${heading}\n\n${markdown(figures, opts, targets)}\n`);
  if (opts.json) {
    writeFileSync(opts.json, `${JSON.stringify({ options: opts, environment: env, modes: figures, turns }, null, 2)}\n`);
    log("info", "bench_json_written", { file: opts.json });
  }
  return 0;
}

/** Every order of the targets (all six for three), so each goes first, in the middle and last equally often. */
function rotations(targets: readonly Target[]): Target[][] {
  if (targets.length <= 1) return [[...targets]];
  return targets.flatMap((first, i) => rotations(targets.filter((_, j) => j !== i)).map((rest) => [first, ...rest]));
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
  ["workerd peak − before MiB", "peakGrowthMiB", (x) => fixed(x, 1)],
];

/** The figures whose per-round ratio (target ÷ the same round's baseline) is summarized with its spread. */
const SPREAD: [string, keyof TurnRecord][] = [
  ["first part", "ttfcMs"],
  ["p99 part latency", "p99Ms"],
  ["p50 part latency", "p50Ms"],
  ["workerd CPU", "workerdCpuS"],
  ["workerd peak − before", "peakGrowthMiB"],
  ["delivered parts/s", "totalTokS"],
];

function roundRatio(
  round: Partial<Record<Target, TurnRecord>>,
  target: Target,
  key: keyof TurnRecord,
  over: Target = "baseline",
): number | undefined {
  const a = round[target]?.[key];
  const b = round[over]?.[key];
  if (typeof a !== "number" || typeof b !== "number" || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return undefined;
  return a / b;
}

/** A ratio's median over the rounds, with its spread: quartiles (linear interpolation) and extremes. */
interface Spread {
  n: number;
  median: number;
  q1: number;
  q3: number;
  min: number;
  max: number;
}

function spreadOf(values: readonly (number | undefined)[]): Spread | undefined {
  const xs = values.filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return undefined;
  return { n: xs.length, median: quantile(xs, 0.5), q1: quantile(xs, 0.25), q3: quantile(xs, 0.75), min: xs[0]!, max: xs.at(-1)! };
}

interface ModeFigures {
  mode: string;
  delayMs: number;
  medians: Partial<Record<Target, Record<string, number>>>;
  complete: Partial<Record<Target, string>>;
  /** Per target (not the baseline): each SPREAD figure's per-round ratio, summarized. */
  spreads: Partial<Record<Target, Record<string, Spread | undefined>>>;
  /** With --compare: chatd ÷ before, per round (the change itself, against the same round's old code). */
  afterOverBefore?: Record<string, Spread | undefined>;
  /** chatd ÷ the bare turn, per round: chatd's own work beyond the AI SDK's pipeline. */
  overBareTurn?: Record<string, Spread | undefined>;
  /** Memory: per round, whether growth ≤ 2 × the baseline's + MEMORY_ALLOWANCE_MIB. */
  memoryMet: Partial<Record<Target, { met: number; rounds: number }>>;
}

function summarize(turns: TurnRecord[], opts: Options, targets: readonly Target[]): ModeFigures[] {
  return opts.modes.map((mode) => {
    const inMode = turns.filter((t) => t.mode === mode.name);
    const of = (target: Target) => inMode.filter((t) => t.target === target);
    const medians: ModeFigures["medians"] = {};
    const complete: ModeFigures["complete"] = {};
    const spreads: ModeFigures["spreads"] = {};
    const memoryMet: ModeFigures["memoryMet"] = {};
    const rounds = [...new Set(inMode.map((t) => t.rep))].map((rep) =>
      Object.fromEntries(inMode.filter((t) => t.rep === rep).map((t) => [t.target, t])),
    ) as Partial<Record<Target, TurnRecord>>[];
    for (const target of targets) {
      medians[target] = Object.fromEntries(COLUMNS.map(([, key]) => [key, median(of(target).map((t) => t[key] as number))]));
      complete[target] = `${Math.min(...of(target).map((t) => t.complete))}/${opts.clients}`;
      if (target === "baseline") continue;
      spreads[target] = Object.fromEntries(SPREAD.map(([, key]) => [key, spreadOf(rounds.map((r) => roundRatio(r, target, key)))]));
      const judged = rounds.filter((r) => r[target] && r.baseline);
      memoryMet[target] = {
        met: judged.filter((r) => r[target]!.peakGrowthMiB <= 2 * r.baseline!.peakGrowthMiB + MEMORY_ALLOWANCE_MIB).length,
        rounds: judged.length,
      };
    }
    const chatdOver = (other: Target) =>
      targets.includes(other)
        ? Object.fromEntries(SPREAD.map(([, key]) => [key, spreadOf(rounds.map((r) => roundRatio(r, "chatd", key, other)))]))
        : undefined;
    const afterOverBefore = chatdOver("before");
    const overBareTurn = chatdOver("bare-turn");
    return {
      mode: mode.name,
      delayMs: mode.delayMs,
      medians,
      complete,
      spreads,
      memoryMet,
      ...(afterOverBefore ? { afterOverBefore } : {}),
      ...(overBareTurn ? { overBareTurn } : {}),
    };
  });
}

const spreadText = (s: Spread | undefined): string =>
  s ? `**${ratio(s.median)}** (IQR ${ratio(s.q1)}–${ratio(s.q3)}, min–max ${ratio(s.min)}–${ratio(s.max)}, n = ${s.n})` : "–";

function markdown(figures: ModeFigures[], opts: Options, targets: readonly Target[]): string {
  const out: string[] = [];
  const others = targets.filter((t) => t !== "baseline");
  for (const f of figures) {
    out.push(`#### ${f.mode === "unpaced" ? "Unpaced (the model as fast as it can)" : `Paced (${f.delayMs} ms between tokens)`}\n`);
    out.push("Medians over the rounds:\n");
    out.push(`| target | complete | ${COLUMNS.map(([h]) => h).join(" | ")} |`);
    out.push(`|${"---|".repeat(COLUMNS.length + 2)}`);
    for (const target of targets) {
      const m = f.medians[target]!;
      out.push(`| ${target} | ${f.complete[target]} | ${COLUMNS.map(([, key, fmt]) => fmt(m[key]!)).join(" | ")} |`);
    }
    out.push("", "Per-round ratios to the same round's baseline: median (interquartile range, extremes):\n");
    // chatd against the bare turn and against --compare's commit, beside the ratios to the baseline.
    const against = [
      ...(f.overBareTurn ? [["chatd ÷ bare-turn", f.overBareTurn] as const] : []),
      ...(f.afterOverBefore ? [["chatd ÷ before", f.afterOverBefore] as const] : []),
    ];
    out.push(
      `| figure | ${[...others.map((t) => `${t} ÷ baseline`), ...against.map(([h]) => h)].join(" | ")} |`,
      `|---|${"---|".repeat(others.length + against.length)}`,
    );
    for (const [name, key] of SPREAD)
      out.push(
        `| ${name} | ${[...others.map((t) => spreadText(f.spreads[t]?.[key])), ...against.map(([, s]) => spreadText(s[key]))].join(" | ")} |`,
      );
    out.push("");
  }
  const unpaced = figures.find((f) => f.mode === "unpaced");
  const paced = figures.find((f) => f.mode === "paced");
  const judge = (spread: Spread | undefined, ok: (x: number) => boolean) =>
    spread ? `${verdict(ok(spread.median))}${ok(spread.min) === ok(spread.max) ? "" : " (not in every round)"}` : "–";
  out.push(
    `| target (issues 6 and 37) | ${others.map((t) => `${t}: median per-round ratio`).join(" | ")} | target | ${others.join(" | ")} |`,
  );
  out.push(`|---|${"---|".repeat(others.length * 2 + 1)}`);
  const row = (name: string, spread: (t: Target) => Spread | undefined, target: string, ok: (x: number) => boolean) =>
    out.push(
      `| ${name} | ${others.map((t) => spreadText(spread(t))).join(" | ")} | ${target} | ${others.map((t) => judge(spread(t), ok)).join(" | ")} |`,
    );
  if (unpaced) {
    row(
      `first part, unpaced, N=${opts.clients}`,
      (t) => unpaced.spreads[t]?.ttfcMs,
      `≤ ${MAX_FIRST_PART_RATIO}x`,
      (x) => x <= MAX_FIRST_PART_RATIO,
    );
    row(
      `delivered parts/s, unpaced`,
      (t) => unpaced.spreads[t]?.totalTokS,
      `≥ ${MIN_THROUGHPUT_RATIO}x`,
      (x) => x >= MIN_THROUGHPUT_RATIO,
    );
  }
  if (paced) {
    row(
      `first part, paced ${paced.delayMs} ms`,
      (t) => paced.spreads[t]?.ttfcMs,
      `≤ ${MAX_FIRST_PART_RATIO}x`,
      (x) => x <= MAX_FIRST_PART_RATIO,
    );
    row(
      `p99 part latency, paced`,
      (t) => paced.spreads[t]?.p99Ms,
      `≤ ${MAX_P99_RATIO}x`,
      (x) => x <= MAX_P99_RATIO,
    );
    row(
      `workerd CPU per paced turn`,
      (t) => paced.spreads[t]?.workerdCpuS,
      `≤ ${MAX_CPU_RATIO}x`,
      (x) => x <= MAX_CPU_RATIO,
    );
    const base = paced.medians.baseline!.peakGrowthMiB!;
    out.push(
      `| workerd memory growth during a paced turn, MiB (median; baseline ${fixed(base)}) | ${others
        .map((t) => `${fixed(paced.medians[t]!.peakGrowthMiB!)}`)
        .join(" | ")} | ≤ 2x baseline + ${MEMORY_ALLOWANCE_MIB} MiB, per round | ${others
        .map((t) => `met in ${paced.memoryMet[t]!.met} of ${paced.memoryMet[t]!.rounds} rounds`)
        .join(" | ")} |`,
    );
  }
  return out.join("\n");
}

/** --report: an earlier run's tables from its JSON file (its options, turns and environment). */
function reportOf(file: string): string {
  const run = JSON.parse(readFileSync(file, "utf8")) as { options: Options; environment: Record<string, unknown>; turns: TurnRecord[] };
  const targets = TARGETS.filter((t) => run.turns.some((turn) => turn.target === t));
  const heading = `### Relay (P1), reported from ${file}: ${run.options.clients} sockets, ${run.options.tokens} parts per turn, ${run.options.reps} rounds per mode (commit ${run.environment.commit}${run.options.compare ? `, before = ${run.options.compare}` : ""})`;
  return `${heading}\n\n${markdown(summarize(run.turns, run.options, targets), run.options, targets)}\n`;
}

const options = parseOptions();
if (options.report) {
  process.stdout.write(reportOf(options.report));
  process.exit(0);
}
await runBench({ keep: options.keep, worktree: options.worktree }, (session) => main(session, options));
