/**
 * Issue 6, P5: the memory of chatd's workerd process with many stream sockets open on one chat and
 * a 1 MB episode streaming to them, against the relay bench's bare Durable Object
 * (scripts/bench/relay/baseline) relaying the same episode to as many sockets, in the same run.
 * See docs/bench.md.
 *
 *   tsx scripts/bench/memory.ts [--sockets 1000] [--parts 1000] [--part-chars 974] [--delay-ms 10] [--reps 3] [--json FILE]
 *
 * Every rep starts each target's worker afresh (one workerd process per target, nothing else in
 * it), warms it up with a small turn on another chat/room, then: RSS before, N sockets, RSS with
 * the sockets, the turn (VmHWM reset before the sockets, RSS sampled every 50 ms), peak.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import WebSocket from "ws";
import { log } from "../lib/log";
import { ROOT_DIR } from "../lib/paths";
import { type Api, apiClient, type ChatWire, streamUrl } from "./common/api";
import { FAIR_USE_OFF } from "../../test/support/fair-use-off";
import { openHeapReader } from "./common/heap";
import { cpuSeconds, memory, resetPeak, settle } from "./common/proc";
import { parseBenchArgs, SESSION_FLAGS, UsageError, wholeNumberOption } from "./common/parse-bench-args";
import { machineLine, runBench, type Session } from "./common/session";
import { fixed, median, ratio, sleep, verdict } from "./common/stats";
import type { WorkerProcess } from "./common/worker-process";

/** P5's target for the object: 64 MB. */
const TARGET_MIB = 64e6 / 2 ** 20;
const CONNECT_BATCH = 25;
/** The StreamPart's JSON around the text: {"type":"text","text":""}. */
const PART_JSON_OVERHEAD = 25;

const USAGE = `usage: tsx scripts/bench/memory.ts [options]
  --sockets N       stream sockets on the chat (default 1000)
  --parts N         text deltas in the episode (default 1000)
  --part-chars N    characters per delta (default 974: 1000 × 999 B of part JSON, just under the 1 MB cap)
  --delay-ms N      the model's gap between deltas (default 10)
  --reps N          reps per target, each on fresh worker processes (default 3)
  --targets LIST    chatd and/or baseline (default both)
  --inspector       run chatd under the \`wrangler dev\` CLI (inspector on) instead of startWorker
  --heap            also read each worker isolate's V8 heap (Runtime.getHeapUsage): starts both
                    targets with wrangler's inspector on, which brings its Network.enable tax back
  --timeout-ms N    per turn (default 300000)
  --json FILE       every rep's figures, the summary, options and versions
  --worktree        run chatd from the working tree (default: HEAD's committed sources)
  --keep            keep the run folder`;

interface Options {
  sockets: number;
  parts: number;
  partChars: number;
  delayMs: number;
  reps: number;
  targets: Target[];
  inspector: boolean;
  heap: boolean;
  timeoutMs: number;
  json: string | undefined;
  worktree: boolean;
  keep: boolean;
}

function parseOptions(): Options {
  return parseBenchArgs(
    USAGE,
    {
      ...SESSION_FLAGS,
      sockets: { type: "string", default: "1000" },
      parts: { type: "string", default: "1000" },
      "part-chars": { type: "string", default: "974" },
      "delay-ms": { type: "string", default: "10" },
      reps: { type: "string", default: "3" },
      targets: { type: "string", default: "chatd,baseline" },
      inspector: { type: "boolean", default: false },
      heap: { type: "boolean", default: false },
      "timeout-ms": { type: "string", default: "300000" },
    },
    (values) => {
      const int = wholeNumberOption;
      return {
        sockets: int("sockets", values.sockets, 1, 10_000),
        parts: int("parts", values.parts, 1, 1_000_000),
        partChars: int("part-chars", values["part-chars"], 1, 1_000_000),
        delayMs: int("delay-ms", values["delay-ms"], 0, 10_000),
        reps: int("reps", values.reps, 1, 100),
        targets: values.targets.split(",").map((t) => {
          if (t !== "chatd" && t !== "baseline") throw new UsageError(`--targets takes chatd and/or baseline, got "${t}"`);
          return t;
        }),
        inspector: values.inspector,
        heap: values.heap,
        timeoutMs: int("timeout-ms", values["timeout-ms"], 1000, 3_600_000),
        json: values.json,
        worktree: values.worktree,
        keep: values.keep,
      };
    },
  );
}

/** The episode model in its own process; resolves to its base URL (with /v1). */
async function startEpisodeModel(session: Session, opts: Options): Promise<string> {
  const args = ["--import", "tsx", `${ROOT_DIR}scripts/bench/memory/episode-model.ts`];
  args.push("--parts", String(opts.parts), "--part-chars", String(opts.partChars), "--delay-ms", String(opts.delayMs));
  const child: ChildProcess = spawn(process.execPath, args, { cwd: ROOT_DIR, stdio: ["ignore", "pipe", "inherit"] });
  session.defer(async () => {
    child.kill("SIGTERM");
  });
  for await (const line of createInterface({ input: child.stdout! })) {
    const m = line.match(/^listening on (\d+)/);
    if (m) return `http://127.0.0.1:${m[1]}/v1`;
  }
  throw new Error("the episode model exited before listening");
}

/** One client socket: counts parts and bytes, and notes when the turn ended for it. */
interface Client {
  ws: WebSocket;
  parts: number;
  bytes: number;
  frames: number;
  running: boolean;
  doneAt: number;
}

/** How a target's frames read: a greeting before the turn, parts and the end after the trigger. */
interface Protocol {
  /** The server's greeting frame (chatd: the bootstrap); null when the open socket is enough. */
  greeted: ((frame: string) => boolean) | null;
  partsIn(frame: string): number;
  /** The turn ended for this client (given what it has seen so far). */
  ended(frame: string, client: Client): boolean;
}

const occurrences = (s: string, needle: string) => {
  let n = 0;
  for (let i = s.indexOf(needle); i >= 0; i = s.indexOf(needle, i + needle.length)) n++;
  return n;
};

const CHATD: Protocol = {
  greeted: (frame) => frame.includes('"type":"status"'),
  partsIn: (frame) => occurrences(frame, '"type":"message_part"'),
  ended(frame, client) {
    // The bootstrap said waiting; the turn says running, streams, then waiting again.
    if (frame.includes('{"status":"running"}')) client.running = true;
    return client.running && frame.includes('{"status":"waiting"}');
  },
};

const BASELINE: Protocol = {
  greeted: null,
  partsIn: (frame) => occurrences(frame, '"type":"delta"'),
  ended: (frame) => frame.includes('"type":"done"'),
};

async function connect(url: string, protocol: Protocol, timeoutMs: number): Promise<Client> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const client: Client = { ws, parts: 0, bytes: 0, frames: 0, running: false, doneAt: 0 };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no greeting within the timeout")), timeoutMs);
    const greeted = protocol.greeted;
    const ready = () => {
      clearTimeout(timer);
      resolve();
    };
    if (greeted) ws.on("message", (data: Buffer) => greeted(data.toString()) && ready());
    else ws.once("open", ready);
    ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade answered ${res.statusCode}`)));
    ws.once("error", reject);
  });
  ws.removeAllListeners("message");
  return client;
}

type Target = "chatd" | "baseline";

/** One reading after the trigger: seconds since it, the worker's RSS, parts received by all sockets, sockets done. */
type Sample = [t: number, rssMiB: number, parts: number, done: number, heapUsedMiB: number];

interface Measured {
  target: Target;
  rep: number;
  rssBeforeMiB: number;
  rssSocketsMiB: number;
  peakMiB: number;
  rssAfterMiB: number;
  /** Peak − before: the sockets and the episode. */
  growthMiB: number;
  /** (RSS with the sockets open − before) per socket. */
  perSocketKiB: number;
  /** Peak − RSS with the sockets open. */
  episodeMiB: number;
  /** Highest RSS reading while parts were still on their way (before every socket had every part). */
  streamPeakMiB: number;
  complete: number;
  minParts: number;
  framesPerSocket: number;
  mbPerSocket: number;
  /** Trigger → the last socket's end. */
  turnS: number;
  workerdCpuS: number;
  /** Seconds after the trigger at which RSS was highest, and what the clients had received then. */
  peakAtS: number;
  partsAtPeak: number;
  doneAtPeak: number;
  timeline: Sample[];
  /** With --heap: the isolate's V8 heap in use (MiB) before the sockets, with them, and its highest reading. */
  heapBeforeMiB: number;
  heapSocketsMiB: number;
  heapPeakMiB: number;
}

/** Sockets, turn and memory readings on one target's fresh workerd. */
async function measure(
  worker: WorkerProcess,
  target: Target,
  rep: number,
  opts: Options,
  setup: { url: string; trigger: () => Promise<unknown>; protocol: Protocol },
): Promise<Measured> {
  const pid = worker.workerPid;
  const heap = opts.heap && worker.inspectorUrl ? await openHeapReader(worker.inspectorUrl) : undefined;
  let heapUsed = Number.NaN;
  let heapPeak = Number.NaN;
  let heapReading = false;
  const readHeap = async () => {
    if (!heap || heapReading) return;
    heapReading = true;
    heapUsed = (await heap.read().catch(() => ({ usedMiB: Number.NaN }))).usedMiB;
    heapPeak = Number.isNaN(heapPeak) ? heapUsed : Math.max(heapPeak, heapUsed);
    heapReading = false;
  };
  await settle([pid]);
  // Live objects only at the two resting points (a full GC first); during the turn, what is in use.
  await heap?.collectGarbage();
  await readHeap();
  const heapBefore = heapUsed;
  const before = memory(pid).rss;
  const peakResettable = resetPeak(pid);
  let sampledPeak = before;
  let triggeredAt = 0;
  let partsSeen = 0;
  let ended = 0;
  const timeline: Sample[] = [];
  const sample = () => {
    const rss = memory(pid).rss;
    sampledPeak = Math.max(sampledPeak, rss);
    if (triggeredAt) timeline.push([(performance.now() - triggeredAt) / 1000, rss, partsSeen, ended, heapUsed]);
    void readHeap();
  };
  const sampler = setInterval(sample, 50);
  const clients: Client[] = [];
  try {
    for (let i = 0; i < opts.sockets; i += CONNECT_BATCH) {
      const batch = Math.min(CONNECT_BATCH, opts.sockets - i);
      clients.push(...(await Promise.all(Array.from({ length: batch }, () => connect(setup.url, setup.protocol, opts.timeoutMs)))));
    }
    await settle([pid]);
    await heap?.collectGarbage();
    await readHeap();
    const heapSockets = heapUsed;
    const withSockets = memory(pid).rss;
    log("info", "bench_sockets_open", { target, rep, sockets: clients.length, rss_before_mib: before, rss_sockets_mib: withSockets });

    let allEnded: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      allEnded = resolve;
    });
    for (const client of clients) {
      client.ws.on("message", (data: Buffer) => {
        const frame = data.toString();
        client.frames++;
        client.bytes += data.length;
        const parts = setup.protocol.partsIn(frame);
        client.parts += parts;
        partsSeen += parts;
        if (!client.doneAt && setup.protocol.ended(frame, client)) {
          client.doneAt = performance.now();
          if (++ended === clients.length) allEnded();
        }
      });
    }
    const cpu0 = cpuSeconds(pid);
    const started = performance.now();
    triggeredAt = started;
    const triggered = setup.trigger().catch((err: unknown) => log("warn", "bench_trigger_failed", { target, error: String(err) }));
    const timedOut = await Promise.race([finished.then(() => false), sleep(opts.timeoutMs).then(() => true)]);
    const turnS = (Math.max(...clients.map((c) => c.doneAt || performance.now())) - started) / 1000;
    const workerdCpuS = cpuSeconds(pid) - cpu0;
    await triggered;
    sample();
    const peak = peakResettable ? Math.max(memory(pid).hwm, sampledPeak) : sampledPeak;
    const after = memory(pid).rss;
    if (timedOut) log("warn", "bench_turn_timed_out", { target, rep, ended, sockets: clients.length });
    const streaming = timeline.filter((x) => x[2] < clients.length * opts.parts).map((x) => x[1]);
    const atPeak = timeline.reduce<Sample | undefined>((best, s) => (best === undefined || s[1] > best[1] ? s : best), undefined);
    return {
      target,
      rep,
      rssBeforeMiB: before,
      rssSocketsMiB: withSockets,
      peakMiB: peak,
      rssAfterMiB: after,
      growthMiB: peak - before,
      perSocketKiB: ((withSockets - before) * 1024) / clients.length,
      episodeMiB: peak - withSockets,
      streamPeakMiB: Math.max(withSockets, ...streaming),
      complete: clients.filter((c) => c.doneAt && c.parts === opts.parts).length,
      minParts: Math.min(...clients.map((c) => c.parts)),
      framesPerSocket: median(clients.map((c) => c.frames)),
      mbPerSocket: median(clients.map((c) => c.bytes)) / 1e6,
      turnS,
      workerdCpuS,
      peakAtS: atPeak?.[0] ?? Number.NaN,
      partsAtPeak: atPeak?.[2] ?? Number.NaN,
      doneAtPeak: atPeak?.[3] ?? Number.NaN,
      // Every 4th reading (200 ms) is plenty for the JSON file.
      timeline: timeline
        .filter((_, i) => i % 4 === 0)
        .map(([t, r, p, d, h]) => [Math.round(t * 100) / 100, Math.round(r), p, d, Math.round(h)]),
      heapBeforeMiB: heapBefore,
      heapSocketsMiB: heapSockets,
      heapPeakMiB: heapPeak,
    };
  } finally {
    clearInterval(sampler);
    heap?.close();
    for (const c of clients) c.ws.terminate();
    await sleep(500);
  }
}

/** A small turn on another chat with one socket: loads the isolate and warms the code paths. */
async function warmChatd(api: Api, origin: string, token: string, timeoutMs: number): Promise<void> {
  const chat = await api<ChatWire>("POST", "/chats", { content: [] });
  const client = await connect(streamUrl(origin, chat.id, token), CHATD, timeoutMs);
  const done = new Promise<void>((resolve) => client.ws.on("message", (d: Buffer) => CHATD.ended(d.toString(), client) && resolve()));
  await api("POST", `/chats/${chat.id}/messages`, { content: [{ type: "text", text: "warm up" }] });
  await Promise.race([done, sleep(timeoutMs)]);
  client.ws.terminate();
}

async function main(session: Session, opts: Options): Promise<number> {
  const env = session.environment();
  log("info", "bench_start", { bench: "memory", ...opts, run_dir: session.dir, ...env });
  const modelUrl = await startEpisodeModel(session, opts);
  // The seeded default model config points at the episode model: chats created without one use it.
  const { stack, seeded } = await session.startStack({ fakeModelUrl: modelUrl.replace(/\/v1$/, "") });
  const episodeBytes = opts.parts * (opts.partChars + PART_JSON_OVERHEAD);
  if (episodeBytes > 1_000_000)
    log("warn", "bench_episode_over_cap", { bytes: episodeBytes, note: "the part buffer refuses parts past 1 MB" });

  const results: Measured[] = [];
  for (let rep = 1; rep <= opts.reps && !session.interrupted; rep++) {
    const order = rep % 2 === 1 ? opts.targets : [...opts.targets].reverse();
    for (const target of order) {
      if (session.interrupted) break;
      if (target === "chatd") {
        // Fair use off: the bench's sockets are all the seeded owner's, on one chat (docs/fairness.md).
        const worker = await session.startChatd(stack, {
          cli: opts.inspector,
          label: `chatd-${rep}`,
          inspector: opts.heap,
          vars: FAIR_USE_OFF,
        });
        const api = apiClient(worker.directOrigin, seeded.token);
        await warmChatd(api, worker.directOrigin, seeded.token, opts.timeoutMs);
        const chat = await api<ChatWire>("POST", "/chats", { content: [] });
        results.push(
          await measure(worker, "chatd", rep, opts, {
            url: streamUrl(worker.directOrigin, chat.id, seeded.token),
            trigger: () => api("POST", `/chats/${chat.id}/messages`, { content: [{ type: "text", text: "go" }] }),
            protocol: CHATD,
          }),
        );
        worker.checkAlive();
        await worker.stop();
      } else {
        const worker = await session.startWorker(
          `baseline-${rep}`,
          `${ROOT_DIR}scripts/bench/relay/baseline/wrangler.toml`,
          { MODEL_BASE_URL: modelUrl },
          "/health",
          opts.heap,
        );
        const room = (name: string) => `${worker.directOrigin}/room/${name}`;
        const warm = await connect(`${room("warm").replace(/^http/, "ws")}/ws`, BASELINE, opts.timeoutMs);
        await fetch(`${room("warm")}/turn`, { method: "POST" }).then((r) => r.text());
        warm.ws.terminate();
        results.push(
          await measure(worker, "baseline", rep, opts, {
            url: `${room(`bench-${rep}`).replace(/^http/, "ws")}/ws`,
            trigger: () => fetch(`${room(`bench-${rep}`)}/turn`, { method: "POST" }).then((r) => r.text()),
            protocol: BASELINE,
          }),
        );
        worker.checkAlive();
        await worker.stop();
      }
      const { timeline: _, ...last } = results.at(-1)!;
      log("info", "bench_rep", { ...last });
      if (last.complete !== opts.sockets)
        log("warn", "bench_incomplete", { target, rep, complete: last.complete, min_parts: last.minParts });
    }
  }
  if (session.interrupted) return 130;

  const heading =
    `### Memory (P5): ${opts.sockets} stream sockets on one chat, an episode of ${opts.parts} parts × ${opts.partChars + PART_JSON_OVERHEAD} B ` +
    `(${(episodeBytes / 1e6).toFixed(2)} MB of part JSON), ${opts.delayMs} ms apart; medians of ${opts.reps} reps, each on fresh workerd processes\n\n` +
    `${machineLine(env, opts.worktree)}. chatd: ${opts.inspector ? "wrangler dev CLI, inspector on" : `startWorker, inspector ${opts.heap ? "on (--heap)" : "off"}`}; ` +
    `baseline: scripts/bench/relay/baseline (a bare Durable Object relaying each delta), startWorker, inspector ${opts.heap ? "on (--heap)" : "off"}.`;
  process.stdout.write(`${heading}\n\n${markdown(results, opts)}\n`);
  if (opts.json) {
    writeFileSync(opts.json, `${JSON.stringify({ options: opts, environment: env, results }, null, 2)}\n`);
    log("info", "bench_json_written", { file: opts.json });
  }
  return 0;
}

function markdown(results: Measured[], opts: Options): string {
  const of = (target: Target, f: (m: Measured) => number) => median(results.filter((r) => r.target === target).map(f));
  const rows: [string, (m: Measured) => number, number][] = [
    ["workerd RSS before the sockets, MiB", (m) => m.rssBeforeMiB, 1],
    ["RSS with the sockets open, MiB", (m) => m.rssSocketsMiB, 1],
    ["peak (VmHWM) during the episode, MiB", (m) => m.peakMiB, 1],
    ["**growth: peak − before, MiB**", (m) => m.growthMiB, 1],
    ["**per socket: (with sockets − before) ÷ N, KiB**", (m) => m.perSocketKiB, 1],
    ["episode: peak − with sockets, MiB", (m) => m.episodeMiB, 1],
    ["while the parts stream: highest RSS − before, MiB", (m) => m.streamPeakMiB - m.rssBeforeMiB, 1],
    ["after the last part (the turn's end): peak − highest while streaming, MiB", (m) => m.peakMiB - m.streamPeakMiB, 1],
    ["RSS after the turn, MiB", (m) => m.rssAfterMiB, 1],
    ...(opts.heap
      ? ([
          ["V8 heap live before the sockets (after a full GC), MiB", (m) => m.heapBeforeMiB, 1],
          ["V8 heap live with the sockets open (after a full GC), MiB", (m) => m.heapSocketsMiB, 1],
          ["V8 heap live per socket, KiB", (m) => ((m.heapSocketsMiB - m.heapBeforeMiB) * 1024) / opts.sockets, 1],
          ["V8 heap used, highest reading, MiB", (m) => m.heapPeakMiB, 1],
          ["**V8 heap growth: highest − before, MiB**", (m) => m.heapPeakMiB - m.heapBeforeMiB, 1],
        ] as [string, (m: Measured) => number, number][])
      : []),
    ["trigger → every socket done, s", (m) => m.turnS, 2],
    ["trigger → the peak, s", (m) => m.peakAtS, 2],
    ["parts delivered (all sockets) at the peak, %", (m) => (100 * m.partsAtPeak) / (opts.sockets * opts.parts), 0],
    ["workerd CPU during the turn, s", (m) => m.workerdCpuS, 2],
    ["frames per socket", (m) => m.framesPerSocket, 0],
    ["MB received per socket", (m) => m.mbPerSocket, 2],
  ];
  const complete = (target: Target) => `${Math.min(...results.filter((r) => r.target === target).map((r) => r.complete))}/${opts.sockets}`;
  const out = ["| figure | chatd | baseline | chatd ÷ baseline |", "|---|---|---|---|"];
  out.push(`| sockets that got every part and the end (worst rep) | ${complete("chatd")} | ${complete("baseline")} | |`);
  for (const [label, f, digits] of rows) {
    const c = of("chatd", f);
    const b = of("baseline", f);
    out.push(`| ${label} | ${fixed(c, digits)} | ${fixed(b, digits)} | ${ratio(c / b)} |`);
  }
  const growth = of("chatd", (m) => m.growthMiB);
  out.push(
    "",
    "| P5 figure | chatd | target | |",
    "|---|---|---|---|",
    `| workerd RSS growth, before the sockets → peak | ${fixed(growth)} MiB | < 64 MB (${fixed(TARGET_MIB)} MiB) | ${verdict(growth < TARGET_MIB)} |`,
  );
  return out.join("\n");
}

const options = parseOptions();
await runBench({ keep: options.keep, worktree: options.worktree }, (session) => main(session, options));
