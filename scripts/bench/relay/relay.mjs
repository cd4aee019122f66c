#!/usr/bin/env node
// Relay benchmark driver: how fast streamed model output reaches N WebSocket clients (browser
// tabs) through a relay. It starts the project's fake model (scripts/fake-model/) and, per target,
// wrangler's local dev server for the target's worker (devserver.mjs), connects N clients of one
// chat, starts one turn whose prompt is the fake model's `/stamp <tokens> <delay-ms>` (each token
// carries its write time, [seq@µs]), and records what every client receives. With several targets they run
// alternately, rep by rep. Protocols live in targets.mjs; the figures are defined in README.md.
//
//   node scripts/bench/relay/relay.mjs --target baseline --clients 50 --tokens 2000
//   node scripts/bench/relay/relay.mjs --target baseline,peer --clients 1,50,200 --reps 3     (the README table)
//   node scripts/bench/relay/relay.mjs --target NAME --url http://127.0.0.1:PORT --fake-port 8790 [--pid PID]
//                        (a service started elsewhere, its model pointed at the fake)
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import { startWrangler, memory, resetPeak, cpuSeconds, settle } from "./devserver.mjs";
import { targets } from "./targets.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
/** The client's receipt time, on the clock of the fake model's stamps (CLOCK_MONOTONIC, the same in every process). */
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
/** Matches one stamped token in streamed text: [seq@µs]. */
const STAMP = /\[(\d+)@(\d+)\]/g;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const deadline = (ms, value) => new Promise((r) => setTimeout(r, ms, value).unref()); // does not hold the process
const log = (...a) => console.error(...a);

const { values: opt } = parseArgs({
  options: {
    target: { type: "string", default: "baseline,peer" },
    clients: { type: "string", default: "1" },
    tokens: { type: "string", default: "2000" },
    reps: { type: "string", default: "1" },
    warmup: { type: "string", default: "500" }, // tokens of the untimed first turn per target and N; 0: none
    url: { type: "string" }, // origin of a service started elsewhere (one target)
    pid: { type: "string" }, // its process, for memory and CPU figures
    port: { type: "string", default: "8801" }, // wrangler dev ports: port, port+1, ...
    "fake-port": { type: "string", default: "0" },
    "via-proxy": { type: "boolean", default: false }, // through wrangler's dev proxy, not the worker's own socket
    inspector: { type: "boolean", default: false }, // start the `wrangler dev` CLI, DevTools session and all (see README)
    deflate: { type: "boolean", default: false }, // offer permessage-deflate, as browsers do (see README)
    "delay-ms": { type: "string", default: "0" }, // pause of the fake model between tokens; 0: as fast as it can
    timeout: { type: "string", default: "180" }, // seconds per turn
    json: { type: "string" },
  },
});
const names = opt.target.split(",");
const counts = opt.clients.split(",").map(Number);
const T = Number(opt.tokens);
for (const n of names) if (!targets[n]) throw new Error(`unknown target ${n}; known: ${Object.keys(targets)}`);
if (opt.url && names.length !== 1) throw new Error("--url takes exactly one --target");

const workdir = fs.mkdtempSync(path.join(os.tmpdir(), "relay-bench-"));
const runs = [];
let turnCount = 0;
let fake;

async function main() {
  fake = await startFakeModel(Number(opt["fake-port"]));
  log(`fake model at ${fake.baseURL}`);
  let failed = false;
  try {
    for (const N of counts) {
      const servers = {};
      try {
        for (const [i, name] of names.entries()) servers[name] = await serve(name, Number(opt.port) + i);
        const pids = Object.values(servers)
          .flatMap((s) => [s.workerPid, ...(s.helperPids ?? [])])
          .filter(Boolean);
        if (Number(opt.warmup) > 0)
          for (const name of names) {
            const w = await turn(name, servers[name], N, Number(opt.warmup), pids);
            log(`${name} N=${N} warm-up: ${w.complete}/${N} complete${w.timedOut ? " (TIMED OUT)" : ""}`);
          }
        for (let rep = 1; rep <= Number(opt.reps); rep++) {
          for (const name of names) {
            const r = { target: name, clients: N, tokens: T, rep, ...(await turn(name, servers[name], N, T, pids)) };
            runs.push(r);
            log(line(r));
          }
        }
      } finally {
        for (const s of Object.values(servers)) await s.stop();
      }
    }
    console.log(table(runs));
  } catch (e) {
    failed = true;
    log(`failed: ${e.stack ?? e}\nlogs kept in ${workdir}`);
  } finally {
    await fake.close();
    if (opt.json) {
      const config = { ...opt, node: process.version, cpus: os.cpus().length, versions: versions() };
      fs.writeFileSync(opt.json, JSON.stringify({ config, runs }, null, 2));
    }
    if (!failed) fs.rmSync(workdir, { recursive: true, force: true });
    process.exitCode = failed ? 1 : 0;
  }
}

async function serve(name, port) {
  if (opt.url) return { origin: opt.url, workerPid: opt.pid ? Number(opt.pid) : undefined, stop: async () => {} };
  log(`starting ${opt.inspector ? "wrangler dev" : "wrangler startWorker (inspector off)"} for ${name} on port ${port}`);
  const s = await startWrangler({
    name,
    dir: path.join(here, targets[name].worker),
    port,
    workdir,
    inspector: opt.inspector,
    vars: { MODEL_BASE_URL: fake.baseURL },
  });
  if (!opt["via-proxy"] && s.directOrigin) s.origin = s.directOrigin;
  log(`  ${name}: clients connect to ${s.origin}, workerd pid ${s.workerPid}`);
  return s;
}

// One turn: N clients of a fresh chat, one model turn of `tokens` tokens, figures.
// Before the trigger every process of every server (`pids`) must be idle: a turn's after-work
// (persistence, wrangler's inspector backlog) must not land in the next one.
async function turn(name, server, N, tokens, pids) {
  const adapter = targets[name];
  const fresh = `${name}-${N}-${Date.now().toString(36)}-${++turnCount}`;
  const room = adapter.prepare ? await adapter.prepare({ origin: server.origin, room: fresh, fakeURL: fake.baseURL }) : fresh;
  const turnId = `turn-${fresh}`;
  const prompt = `/stamp ${tokens} ${Number(opt["delay-ms"])}`;
  const clients = Array.from({ length: N }, () => ({
    ws: null,
    greeted: !adapter.greeted,
    tokens: 0,
    dup: 0,
    reorder: 0,
    lastSeq: -1,
    seen: new Uint8Array(tokens),
    first: 0,
    last: 0,
    done: 0,
    frames: 0,
    bytes: 0,
    error: undefined,
  }));
  const lat = new Float64Array(N * tokens);
  // The fake model's first and last token write times, as stamped.
  let firstWriteUs = NaN,
    lastWriteUs = NaN;
  let nLat = 0,
    t0 = 0,
    doneCount = 0,
    allDone;
  const finished = new Promise((r) => {
    allDone = r;
  });

  const onFrame = (c, data) => {
    const t = nowUs();
    const frame = data.toString();
    if (!t0) {
      if (!c.greeted && adapter.greeted(frame)) c.greeted = true;
      return;
    }
    c.frames++;
    c.bytes += data.length;
    const f = adapter.parse(frame);
    if (f.text)
      for (const m of f.text.matchAll(STAMP)) {
        const seq = Number(m[1]);
        if (c.seen[seq]) {
          c.dup++;
          continue;
        }
        c.seen[seq] = 1;
        if (seq === 0) firstWriteUs = Number(m[2]);
        if (seq === tokens - 1) lastWriteUs = Number(m[2]);
        if (seq < c.lastSeq) c.reorder++;
        c.lastSeq = seq;
        lat[nLat++] = t - Number(m[2]);
        if (!c.tokens++) c.first = t;
        c.last = t;
      }
    if (f.error) c.error = f.error;
    if (f.done && !c.done) {
      c.done = t;
      if (++doneCount === N) allDone();
    }
  };
  const connect = (c) =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(adapter.wsUrl(server.origin, room), { perMessageDeflate: opt.deflate });
      c.ws = ws;
      ws.on("message", (d) => onFrame(c, d));
      ws.once("open", resolve);
      ws.once("error", reject);
      ws.once("unexpected-response", (_q, res) => reject(new Error(`${name}: WebSocket upgrade answered ${res.statusCode}`)));
    });
  for (let i = 0; i < N; i += 25) await Promise.all(clients.slice(i, i + 25).map(connect));
  for (let waited = 0; clients.some((c) => !c.greeted); waited += 20) {
    if (waited > 30_000) throw new Error(`${name}: not every client was greeted`);
    await sleep(20);
  }
  const settleMs = await settle(pids);

  const pid = server.workerPid;
  const peakResettable = pid ? resetPeak(pid) : false;
  const mem0 = pid ? memory(pid) : null;
  let sampledPeak = mem0?.rss ?? NaN;
  const sampler = pid
    ? setInterval(() => {
        sampledPeak = Math.max(sampledPeak, memory(pid).rss);
      }, 50)
    : null;
  const cpu0 = pid ? cpuSeconds(pid) : NaN;
  const helperCpu0 = cpuSeconds(...(server.helperPids ?? []));
  const own0 = process.cpuUsage();

  t0 = nowUs();
  const triggered = Promise.resolve()
    .then(() => adapter.trigger({ origin: server.origin, room, sockets: clients.map((c) => c.ws), turnId, prompt }))
    .catch((e) => ({ error: String(e) }));
  const timedOut = await Promise.race([finished.then(() => false), deadline(Number(opt.timeout) * 1000, true)]);
  const tEnd = nowUs();

  if (sampler) clearInterval(sampler);
  const peak = pid ? (peakResettable ? memory(pid).hwm : sampledPeak) : NaN;
  const workerdCpu = pid ? cpuSeconds(pid) - cpu0 : NaN;
  const helperCpu = server.helperPids ? cpuSeconds(...server.helperPids) - helperCpu0 : NaN;
  const own = process.cpuUsage(own0);
  const trig = await Promise.race([triggered, deadline(5000, { error: "trigger did not settle in 5 s" })]);
  await Promise.all(
    clients.map(
      (c) =>
        new Promise((r) => {
          if (c.ws.readyState === WebSocket.CLOSED) return r();
          c.ws.once("close", r);
          c.ws.close();
          setTimeout(() => {
            c.ws.terminate();
            r();
          }, 3000).unref();
        }),
    ),
  );
  await sleep(300);

  const got = clients.filter((c) => c.tokens > 0);
  const sorted = lat.subarray(0, nLat).sort();
  const spanUs = got.length ? Math.max(...got.map((c) => c.last)) - Math.min(...got.map((c) => c.first)) : 0;
  return {
    timedOut,
    complete: clients.filter((c) => c.tokens === tokens && c.done).length,
    requesterTokens: clients[0].tokens,
    minTokens: Math.min(...clients.map((c) => c.tokens)),
    duplicates: clients.reduce((s, c) => s + c.dup, 0),
    reordered: clients.reduce((s, c) => s + c.reorder, 0),
    errors: [...new Set(clients.map((c) => c.error).filter(Boolean))],
    ttfcMs: median(got.map((c) => (c.first - t0) / 1000)),
    requesterTtfcMs: clients[0].tokens ? (clients[0].first - t0) / 1000 : NaN,
    // The model's first token written → a client's first token; median over clients (the relay's own share of TTFC).
    firstAfterModelMs: median(got.map((c) => (c.first - firstWriteUs) / 1000)),
    perClientTokS: median(got.map((c) => (c.last > c.first ? c.tokens / ((c.last - c.first) / 1e6) : NaN))),
    totalTokS: spanUs > 0 ? nLat / (spanUs / 1e6) : NaN,
    p50Ms: quantile(sorted, 0.5) / 1000,
    p99Ms: quantile(sorted, 0.99) / 1000,
    maxMs: sorted.length ? sorted[sorted.length - 1] / 1000 : NaN,
    lastChunkMs: got.length ? (Math.max(...got.map((c) => c.last)) - t0) / 1000 : NaN,
    framesPerClient: median(clients.map((c) => c.frames)),
    bytesPerClient: median(clients.map((c) => c.bytes)),
    fakeStreamMs: (lastWriteUs - firstWriteUs) / 1000,
    workerdRssBeforeMiB: mem0?.rss ?? NaN,
    workerdPeakMiB: peak,
    workerdCpuS: workerdCpu,
    driverCpuS: (own.user + own.system) / 1e6,
    wranglerCpuS: helperCpu,
    wallS: (tEnd - t0) / 1e6,
    settleMs,
    trigger: trig,
  };
}

// The project's fake model in a child process of its own, so that the clients' event loop never
// delays a write; resolves to it, its base URL and a close().
async function startFakeModel(port) {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/fake-model/main.ts", "--port", String(port)], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, FAKE_MODEL_LOG: "0" },
  });
  const lines = createInterface({ input: child.stdout });
  const listening = new Promise((resolve, reject) => {
    lines.on("line", (line) => {
      if (line.includes('"fake_model_listening"')) resolve(JSON.parse(line).url);
    });
    child.once("exit", (code) => reject(new Error(`the fake model exited with ${code} before listening`)));
  });
  const url = await listening;
  // A signal ends this driver at once: the fake model goes with it, as its worker thread once did.
  const kill = () => child.kill("SIGTERM");
  process.on("exit", kill);
  for (const signal of ["SIGINT", "SIGTERM"])
    process.once(signal, () => {
      kill();
      process.exit(128 + os.constants.signals[signal]);
    });
  return {
    baseURL: `${url}/v1`,
    close: async () => {
      process.off("exit", kill);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

// --- figures -------------------------------------------------------------------------------

function quantile(sorted, q) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
function median(xs) {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return v.length ? (v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2) : NaN;
}
const f0 = (x) => (Number.isFinite(x) ? x.toFixed(0) : "-");
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : "-");
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : "-");
const k = (x) => (Number.isFinite(x) ? (x >= 1e4 ? `${(x / 1000).toFixed(0)}k` : x.toFixed(0)) : "-");

function line(r) {
  return (
    `${r.target} N=${r.clients} rep ${r.rep}: ${r.complete}/${r.clients} complete${r.timedOut ? " (TIMED OUT)" : ""}` +
    `${r.errors.length ? ` errors ${r.errors.join("; ")}` : ""}, ttfc ${f1(r.ttfcMs)} ms, ${k(r.perClientTokS)} tok/s/client, ` +
    `${k(r.totalTokS)} tok/s total, latency p50 ${f1(r.p50Ms)} p99 ${f1(r.p99Ms)} ms, last chunk at ${f0(r.lastChunkMs)} ms, ` +
    `workerd peak ${f0(r.workerdPeakMiB)} MiB (before ${f0(r.workerdRssBeforeMiB)}), ` +
    `cpu s: workerd ${f2(r.workerdCpuS)}, wrangler ${f2(r.wranglerCpuS)}, driver ${f2(r.driverCpuS)}` +
    `${r.duplicates || r.reordered ? `, ${r.duplicates} duplicate and ${r.reordered} reordered tokens` : ""}`
  );
}

const COLS = [
  ["complete", (rs) => `${Math.min(...rs.map((r) => r.complete))}/${rs[0].clients}`, null],
  ["TTFC ms", (rs) => f1(median(rs.map((r) => r.ttfcMs))), "ttfcMs"],
  ["tok/s per client", (rs) => k(median(rs.map((r) => r.perClientTokS))), "perClientTokS"],
  ["tok/s total", (rs) => k(median(rs.map((r) => r.totalTokS))), "totalTokS"],
  ["p50 ms", (rs) => f1(median(rs.map((r) => r.p50Ms))), "p50Ms"],
  ["p99 ms", (rs) => f1(median(rs.map((r) => r.p99Ms))), "p99Ms"],
  ["last chunk ms", (rs) => f0(median(rs.map((r) => r.lastChunkMs))), "lastChunkMs"],
  ["workerd peak MiB", (rs) => f0(median(rs.map((r) => r.workerdPeakMiB))), "workerdPeakMiB"],
  ["peak − before MiB", (rs) => f0(median(rs.map((r) => r.workerdPeakMiB - r.workerdRssBeforeMiB))), null],
  ["workerd CPU s", (rs) => f2(median(rs.map((r) => r.workerdCpuS))), "workerdCpuS"],
];

/** Markdown table of medians per target and N, with B/A ratio rows when two targets ran. */
function table(rs) {
  const out = [`| target | N | ${COLS.map(([h]) => h).join(" | ")} |`, `|${"---|".repeat(COLS.length + 2)}`];
  for (const N of counts) {
    const group = (name) => rs.filter((r) => r.target === name && r.clients === N);
    for (const name of names) if (group(name).length) out.push(`| ${name} | ${N} | ${COLS.map(([, f]) => f(group(name))).join(" | ")} |`);
    if (names.length === 2 && group(names[0]).length && group(names[1]).length) {
      const ratio = ([, , key]) =>
        key ? `${f2(median(group(names[1]).map((r) => r[key])) / median(group(names[0]).map((r) => r[key])))}x` : "";
      out.push(`| ${names[1]}/${names[0]} | ${N} | ${COLS.map(ratio).join(" | ")} |`);
    }
  }
  const server = opt.url
    ? `service at ${opt.url}`
    : `${opt.inspector ? "wrangler dev CLI (inspector on)" : "wrangler startWorker, inspector off"}, ${opt["via-proxy"] ? "via the dev proxy" : "direct to the worker's workerd"}`;
  const setup = [
    server,
    opt.deflate ? "permessage-deflate offered" : "no permessage-deflate",
    ...(Number(opt["delay-ms"]) ? [`${opt["delay-ms"]} ms between tokens`] : []),
  ];
  return `\n${rs.length} timed turns, medians of ${opt.reps} per row, ${T} tokens, ${setup.join(", ")}\n\n${out.join("\n")}\n`;
}

function versions() {
  const v = (p) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(here, "node_modules", p, "package.json"), "utf8")).version;
    } catch {
      return null;
    }
  };
  return Object.fromEntries(
    ["wrangler", "workerd", "agents", "@cloudflare/ai-chat", "ai", "@ai-sdk/openai-compatible", "ws"].map((p) => [p, v(p)]),
  );
}

await main();
