/**
 * The Worker's own Postgres routes on each of its two drivers (docs/deploy.md "Hyperdrive"): the
 * Neon serverless driver through scripts/lib/ws-proxy.ts, as bench:turn counts it, against
 * node-postgres on the Hyperdrive bindings under `wrangler dev`, through the counting TCP proxy
 * scripts/lib/pg-tcp-proxy.ts. Both proxies add the same one-way delay. Per route and driver:
 * database round trips per request (for TCP, how many of them were connection setup) and the
 * request's time, at each delay.
 *
 *   tsx scripts/bench/worker-routes.ts [--reps 30] [--warmup 3] [--db-latency-ms 0,20] [--chats 20] [--json FILE] [--keep]
 *
 * Local Hyperdrive is not the service: wrangler dev connects straight to the database, with no
 * pool at the edge and no cache, so connection setup crosses the delay here, as it would not in
 * production. The report splits it out. Markdown on stdout, progress on stderr.
 */
import { rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { log } from "../lib/log";
import { type PgTcpProxy, startPgTcpProxy } from "../lib/pg-tcp-proxy";
import { seedDev } from "../lib/seed";
import { type Stack, startStack } from "../lib/stack";
import { bundleWorker } from "../lib/worker-bundle";
import { localWorkerVars } from "../lib/worker-vars";
import { startWranglerDev, type WranglerDev } from "../lib/wrangler-dev";
import { startWsProxy, type WsProxy } from "../lib/ws-proxy";
import { environment } from "./common/environment";
import { newRunDir } from "./common/new-run-dir";
import { parseBenchArgs, UsageError, wholeNumberOption } from "./common/parse-bench-args";
import { fixed, median, quantile, sleep } from "./common/stats";
import { takeOverSignals } from "./common/take-over-signals";

const BENCH_DATABASE = "chatd_bench_routes";
const DRIVERS = ["neon", "hyperdrive"] as const;
type Driver = (typeof DRIVERS)[number];

interface Options {
  reps: number;
  warmup: number;
  latencies: number[];
  chats: number;
  json: string | undefined;
  keep: boolean;
}

const USAGE = `usage: tsx scripts/bench/worker-routes.ts [options]
  --reps N             timed requests per route and driver (default 30)
  --warmup N           untimed requests first (default 3)
  --db-latency-ms LIST one-way delays of both database proxies, comma-separated (default 0,20)
  --chats N            chats the caller has, for the chat list (default 20)
  --json FILE          every request's figures
  --keep               keep the run folder (Postgres data, wrangler logs)`;

function parseOptions(): Options {
  return parseBenchArgs(
    USAGE,
    {
      reps: { type: "string", default: "30" },
      warmup: { type: "string", default: "3" },
      "db-latency-ms": { type: "string", default: "0,20" },
      chats: { type: "string", default: "20" },
      json: { type: "string" },
      keep: { type: "boolean", default: false },
    },
    (values) => {
      const latencies = values["db-latency-ms"].split(",").map((v) => wholeNumberOption("db-latency-ms", v.trim(), 0, 1_000));
      if (latencies.length === 0) throw new UsageError("--db-latency-ms needs at least one delay");
      return {
        reps: wholeNumberOption("reps", values.reps, 1, 1_000),
        warmup: wholeNumberOption("warmup", values.warmup, 0, 100),
        latencies,
        chats: wholeNumberOption("chats", values.chats, 0, 500),
        json: values.json,
        keep: values.keep,
      };
    },
  );
}

interface Route {
  name: string;
  path: (orgId: string) => string;
  /** Which handle the route reads through (src/http/request-db.ts). */
  binding: string;
}

const ROUTES: Route[] = [
  { name: "GET /users/me", path: () => "/users/me", binding: "uncached" },
  { name: "GET /chats", path: () => "/chats", binding: "uncached" },
  { name: "GET /chats/providers", path: () => "/chats/providers", binding: "auth uncached, list cached" },
  {
    name: "GET /organizations/{org}/chats/model-configs",
    path: (org) => `/organizations/${org}/chats/model-configs`,
    binding: "auth uncached, list cached",
  },
  {
    name: "GET /organizations/{org}/chats/models",
    path: (org) => `/organizations/${org}/chats/models`,
    binding: "auth uncached, lists cached",
  },
];

interface Sample {
  latencyMs: number;
  route: string;
  driver: Driver;
  ms: number;
  roundTrips: number;
  connectRoundTrips: number | undefined;
  /** Connections the request opened: each a TCP, TLS and WebSocket handshake to Neon's proxy in production for the Neon driver. */
  connections: number;
}

/** One delay: a proxy of each kind, a Worker on each driver, every route timed on both, alternating. */
async function measureAt(
  latencyMs: number,
  stack: Stack,
  bundle: string,
  opts: Options,
  runDir: string,
  track: (stop: () => Promise<void>) => void,
  interrupted: () => boolean,
): Promise<Sample[]> {
  const db = new URL(stack.databaseUrl);
  const ws: WsProxy = await startWsProxy({ allow: [`${db.hostname}:${db.port}`, `localhost:${db.port}`], latencyMs });
  track(ws.close);
  const tcp: PgTcpProxy = await startPgTcpProxy({ target: { host: db.hostname, port: Number(db.port) }, latencyMs });
  track(tcp.close);
  const workers = {} as Record<Driver, WranglerDev>;
  for (const driver of DRIVERS) {
    const vars = localWorkerVars(
      { ...stack, wsProxy: ws.hostPort },
      { WORKER_DB_DRIVER: driver, CHAT_WORKER_ENABLED: "false", CHAT_RATE_LIMITS_ENABLED: "false", LOG_LEVEL: "warn" },
    );
    workers[driver] = await startWranglerDev({
      bundle,
      vars,
      persistTo: `${runDir}/wrangler-${driver}-${latencyMs}`,
      logFile: `${runDir}/wrangler-${driver}-${latencyMs}.log`,
      hyperdriveUrl: tcp.urlFor(stack.databaseUrl),
    });
    track(workers[driver].stop);
  }
  const seeded = await seedDev({ databaseUrl: stack.databaseUrl, fakeModelUrl: stack.fakeModelUrl });
  const headers = { authorization: `Bearer ${seeded.token}` };
  const existing = (await (await fetch(`${workers.neon.url}/api/v2/chats?limit=500`, { headers })).json()) as unknown[];
  for (let i = existing.length; i < opts.chats; i++) {
    const res = await fetch(`${workers.neon.url}/api/v2/chats`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ content: [{ type: "text", text: `bench chat ${i}` }] }),
    });
    if (res.status !== 201) throw new Error(`POST /chats answered ${res.status}: ${await res.text()}`);
  }
  // The chats' objects finish their own writes before anything is counted.
  await sleep(2_000 + 10 * latencyMs);

  const samples: Sample[] = [];
  for (const route of ROUTES) {
    for (let i = 0; i < opts.warmup + opts.reps && !interrupted(); i++) {
      const order = i % 2 === 0 ? DRIVERS : ([...DRIVERS].reverse() as Driver[]);
      for (const driver of order) {
        ws.resetCounters();
        tcp.resetCounters();
        const started = performance.now();
        const res = await fetch(`${workers[driver].url}/api/v2${route.path(seeded.organization_id)}`, { headers });
        await res.arrayBuffer();
        const ms = performance.now() - started;
        if (res.status !== 200) throw new Error(`${route.name} on ${driver} answered ${res.status}`);
        // A statement still on its way after the response (none is expected) would land by now.
        await sleep(20 + 2 * latencyMs);
        const wsCounts = ws.counters();
        const wsRoundTrips = wsCounts.roundTrips;
        const tcpCounts = tcp.counters();
        const own = driver === "neon" ? wsRoundTrips : tcpCounts.roundTrips;
        const other = driver === "neon" ? tcpCounts.roundTrips : wsRoundTrips;
        if (other !== 0) log("warn", "bench_routes_crossed_paths", { route: route.name, driver, other_round_trips: other });
        if (i >= opts.warmup)
          samples.push({
            latencyMs,
            route: route.name,
            driver,
            ms,
            roundTrips: own,
            connectRoundTrips: driver === "hyperdrive" ? tcpCounts.connectRoundTrips : undefined,
            connections: driver === "neon" ? wsCounts.connections : tcpCounts.connections,
          });
      }
    }
    log("info", "bench_routes_route_done", { latency_ms: latencyMs, route: route.name });
  }
  return samples;
}

function report(samples: Sample[], opts: Options, env: Record<string, unknown>): string {
  const lines = [
    `### The Worker's Postgres routes: Neon driver vs Hyperdrive (local), ${opts.reps} requests each (+${opts.warmup} warm-up)`,
    "",
    `${env.cpus} CPUs, Node ${env.node}, wrangler ${env.wrangler}, commit ${env.commit}${env.dirty ? " (dirty)" : ""}, ` +
      `load average (1 min) ${(env.loadavg_at_start as number[])[0]} at start, ${(env.loadavg_at_end as number[])[0]} at end; ` +
      `${opts.chats} chats on the list. Round trips and connections: median per request (Hyperdrive: round trips of ` +
      "connection setup in brackets). Times: ms, median / p95.",
    "",
    `| route | handle | one-way delay | Neon round trips | Neon connections | Hyperdrive round trips (setup) | Hyperdrive connections | Neon ms | Hyperdrive ms |`,
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const latency of opts.latencies) {
    for (const route of ROUTES) {
      const of = (driver: Driver) => samples.filter((s) => s.latencyMs === latency && s.route === route.name && s.driver === driver);
      const neon = of("neon");
      const hd = of("hyperdrive");
      if (neon.length === 0 || hd.length === 0) continue;
      const times = (xs: Sample[]) => {
        const sorted = xs.map((s) => s.ms).sort((a, b) => a - b);
        return `${fixed(quantile(sorted, 0.5))} / ${fixed(quantile(sorted, 0.95))}`;
      };
      lines.push(
        `| ${route.name} | ${route.binding} | ${latency} ms | ${fixed(median(neon.map((s) => s.roundTrips)), 0)} | ` +
          `${fixed(median(neon.map((s) => s.connections)), 0)} | ` +
          `${fixed(median(hd.map((s) => s.roundTrips)), 0)} (${fixed(median(hd.map((s) => s.connectRoundTrips)), 0)}) | ` +
          `${fixed(median(hd.map((s) => s.connections)), 0)} | ${times(neon)} | ${times(hd)} |`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

async function main(): Promise<number> {
  const opts = parseOptions();
  const runDir = newRunDir();
  const stops: (() => Promise<void>)[] = [];
  let interrupted = false;
  let cleaning: Promise<void> | undefined;
  const cleanup = () => {
    cleaning ??= (async () => {
      for (const stop of stops.reverse()) await stop().catch((err) => log("warn", "bench_stop_failed", { error: String(err) }));
      if (!opts.keep) rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
      else log("info", "bench_run_dir_kept", { dir: runDir });
    })();
    return cleaning;
  };
  takeOverSignals((signal) => {
    if (interrupted) process.exit(130);
    interrupted = true;
    log("warn", "bench_interrupted", { signal });
    setTimeout(() => process.exit(130), 30_000).unref();
    void cleanup().finally(() => process.exit(130));
  });
  try {
    const env = environment(["wrangler", "pg", "@neondatabase/serverless"]);
    log("info", "bench_start", { ...opts, run_dir: runDir, ...env });
    const stack = await startStack({ dataDir: `${runDir}/postgres`, database: BENCH_DATABASE, databaseUrl: process.env.DATABASE_URL });
    stops.push(stack.stop);
    // Bundled once: wrangler dev would otherwise reload (and cut requests) whenever a source file changes.
    const bundle = await bundleWorker(`${runDir}/bundle`);
    const samples: Sample[] = [];
    for (const latency of opts.latencies) {
      const stopsBefore = stops.length;
      samples.push(
        ...(await measureAt(
          latency,
          stack,
          bundle,
          opts,
          runDir,
          (stop) => stops.push(stop),
          () => interrupted,
        )),
      );
      // Each delay's Workers and proxies go before the next start: two cores, no leftovers.
      for (const stop of stops.splice(stopsBefore).reverse()) await stop();
      if (interrupted) return 130;
    }
    env.loadavg_at_end = loadavg().map((v) => Math.round(v * 100) / 100);
    process.stdout.write(report(samples, opts, env));
    if (opts.json) writeFileSync(opts.json, `${JSON.stringify({ options: opts, environment: env, samples }, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (interrupted) return 130;
    log("error", "bench_failed", { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    return 1;
  } finally {
    await cleanup();
  }
}

process.exit(await main());
