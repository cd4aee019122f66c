// Starts and stops wrangler's local dev server for one worker folder, and reads the memory and
// CPU of the workerd process that runs the worker (Linux /proc).
//
// Two ways to start it, both with the wrangler pinned in package.json and its workerd:
//  - inspector: false (default): wrangler's own startWorker API with `dev.inspector: false`,
//    run as `node devserver.mjs --serve ...` in a child process. Same runtime, same dev proxy.
//  - inspector: true: the `wrangler dev` CLI, exactly as a developer runs it. The CLI always
//    keeps a DevTools session on the worker with Network.enable, so every chunk of every
//    subrequest body (here: the model's SSE stream) becomes an inspector event that wrangler's
//    dev proxy forwards to wrangler's Node process. On 2 cores that tax is as large as the
//    relay itself; see README.
// Either way there are two workerd processes: a dev proxy on `port`, and the worker itself on
// a random loopback port (`directOrigin`), so the bench can skip the proxy hop.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const wranglerBin = path.join(here, "node_modules", "wrangler", "bin", "wrangler.js");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// `workdir` gets the worker's storage, wrangler's output (`<name>-<port>.log`) and wrangler's
// global state (logs, dev registry: XDG_CONFIG_HOME), so that nothing lands in the home folder.
export async function startWrangler({ name, dir, port, vars = {}, workdir, inspector = false, timeoutMs = 90_000 }) {
  const origin = `http://127.0.0.1:${port}`;
  const persistTo = path.join(workdir, `${name}-state`);
  const logFile = path.join(workdir, `${name}-${port}.log`);
  if (await healthy(origin)) throw new Error(`port ${port} already serves something; pick another with --port`);
  const args = inspector
    ? [
        wranglerBin,
        "dev",
        "--ip",
        "127.0.0.1",
        "--port",
        String(port),
        "--persist-to",
        persistTo,
        ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
      ]
    : [
        fileURLToPath(import.meta.url),
        "--serve",
        "--port",
        String(port),
        "--persist-to",
        persistTo,
        ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
      ];
  const out = fs.openSync(logFile, "w");
  // Own process group, so that stop() reaches workerd too (npx would leave it orphaned).
  const child = spawn(process.execPath, args, {
    cwd: dir,
    detached: true,
    stdio: ["ignore", out, out],
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      XDG_CONFIG_HOME: path.join(workdir, "wrangler-home"),
    },
  });
  fs.closeSync(out);
  const stop = async () => {
    for (const [sig, waits] of [
      ["SIGINT", 50],
      ["SIGKILL", 10],
    ]) {
      try {
        process.kill(-child.pid, sig);
      } catch {
        return;
      }
      for (let i = 0; i < waits; i++) {
        await sleep(100);
        try {
          process.kill(-child.pid, 0);
        } catch {
          return;
        }
      }
    }
  };
  const t0 = Date.now();
  try {
    while (!(await healthy(origin))) {
      if (child.exitCode !== null) throw new Error(`wrangler exited with ${child.exitCode}; see ${logFile}`);
      if (Date.now() - t0 > timeoutMs) throw new Error(`wrangler not ready in ${timeoutMs} ms; see ${logFile}`);
      await sleep(300);
    }
    const all = descendants(child.pid);
    const workerds = all.filter((pid) => comm(pid) === "workerd");
    const isProxy = (pid) => cmdline(pid).includes(`--socket-addr=entry=127.0.0.1:${port}`);
    const workerPid = workerds.find((pid) => !isProxy(pid));
    const proxyPid = workerds.find(isProxy);
    if (!workerPid || !proxyPid) throw new Error(`wrangler is up but its two workerd processes were not found; see ${logFile}`);
    // The worker's workerd listens on its entry socket and, with the inspector, on an inspector
    // and a debug port too; the entry is the one that answers /health. (A probe of the debug
    // port leaves one harmless "RPC connection broken" line in the wrangler log.)
    let directOrigin = null;
    for (const p of listeningPorts(workerPid))
      if (await healthy(`http://127.0.0.1:${p}`)) {
        directOrigin = `http://127.0.0.1:${p}`;
        break;
      }
    // Everything else wrangler runs (its Node process, the dev proxy): busy during a turn only
    // through the inspector tax, or when clients go through the proxy.
    const helperPids = [child.pid, ...all.filter((pid) => pid !== workerPid)];
    return { origin, directOrigin, workerPid, proxyPid, helperPids, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

async function healthy(origin) {
  try {
    const r = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(1000) });
    return r.ok && (await r.text()) === "ok";
  } catch {
    return false;
  }
}

// `node devserver.mjs --serve --port P --persist-to DIR [--var K:V ...]` in a worker folder:
// wrangler's startWorker with the inspector off; stops on SIGINT/SIGTERM.
async function serve() {
  const { values } = parseArgs({
    options: {
      serve: { type: "boolean" },
      port: { type: "string" },
      "persist-to": { type: "string" },
      var: { type: "string", multiple: true },
    },
  });
  const { unstable_startWorker } = await import("wrangler");
  const bindings = Object.fromEntries(
    (values.var ?? []).map((kv) => {
      const i = kv.indexOf(":");
      return [kv.slice(0, i), { type: "plain_text", value: kv.slice(i + 1) }];
    }),
  );
  const worker = await unstable_startWorker({
    config: path.resolve("wrangler.toml"),
    bindings,
    // No build.nodejsCompatMode: since wrangler 4.1xx, startWorker derives it from the config's date
    // and flags, as the CLI does (miniflare 5 no longer exports getNodeCompat).
    dev: {
      inspector: false,
      watch: false,
      logLevel: "warn",
      persist: values["persist-to"],
      server: { hostname: "127.0.0.1", port: Number(values.port) },
    },
  });
  await worker.ready;
  console.log(`ready on ${await worker.url}`);
  const stop = async () => {
    await worker.dispose();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href && process.argv.includes("--serve")) await serve();

// --- /proc ---------------------------------------------------------------------------------

const read = (p) => {
  try {
    return fs.readFileSync(p, "utf8");
  } catch {
    return "";
  }
};
const comm = (pid) => read(`/proc/${pid}/comm`).trim();
const cmdline = (pid) => read(`/proc/${pid}/cmdline`).split("\0").join(" ");
const statFields = (pid) =>
  read(`/proc/${pid}/stat`)
    .replace(/^.*\) /, "")
    .split(" "); // from field 3 on

function descendants(root) {
  const kids = new Map();
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    const ppid = Number(statFields(d)[1]);
    if (!kids.has(ppid)) kids.set(ppid, []);
    kids.get(ppid).push(Number(d));
  }
  const out = [];
  const walk = (pid) => {
    for (const k of kids.get(pid) ?? []) {
      out.push(k);
      walk(k);
    }
  };
  walk(root);
  return out;
}

function listeningPorts(pid) {
  const inodes = new Set();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = fs.readlinkSync(`/proc/${pid}/fd/${fd}`).match(/^socket:\[(\d+)\]$/);
      if (m) inodes.add(m[1]);
    } catch {
      /* gone */
    }
  }
  const ports = [];
  for (const line of read("/proc/net/tcp").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[3] === "0A" && inodes.has(f[9])) ports.push(parseInt(f[1].split(":")[1], 16)); // 0A: LISTEN
  }
  return ports;
}

/** Resident set size and its high-water mark, in MiB. */
export function memory(pid) {
  const s = read(`/proc/${pid}/status`);
  const kb = (k) => Number(s.match(new RegExp(`^${k}:\\s+(\\d+)`, "m"))?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
}

/** Resets VmHWM to the current RSS (Linux clear_refs 5); false where not allowed. */
export function resetPeak(pid) {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** CPU seconds (user + system, all threads) the processes have used so far. */
export function cpuSeconds(...pids) {
  let ticks = 0;
  for (const pid of pids) {
    const f = statFields(pid);
    if (f.length > 12) ticks += Number(f[11]) + Number(f[12]); // utime + stime
  }
  return ticks / 100; // USER_HZ is 100 on Linux
}

/** Waits until the processes together use under 5% of a core over 300 ms (at most `maxMs`). */
export async function settle(pids, maxMs = 15_000) {
  const t0 = Date.now();
  for (;;) {
    const c0 = cpuSeconds(...pids);
    await sleep(300);
    if (cpuSeconds(...pids) - c0 <= 0.015 || Date.now() - t0 > maxMs) return Date.now() - t0;
  }
}
