/**
 * Takes the DevTools seat of a `wrangler dev` (the CLI) and turns the runtime's Network domain off.
 *
 * The CLI always runs an inspector proxy (a worker in the dev proxy's workerd) that keeps every
 * runtime message in memory until a DevTools client attaches. Since wrangler 4.100 it enables the
 * Network domain only while a client is attached, so attaching turns it on, and this client turns it
 * off again. With the Network domain on, every chunk of every subrequest body is an event: the
 * model's SSE streams, the Neon driver's WebSocket frames. With no client, none is ever let go.
 * Measured in R6's Postgres restart (50 chats streaming): the dev proxy's workerd grew from 60 MB
 * to 1.1 GB within 30 s and forwarded requests 10 to 25 s late, while the worker itself answered
 * within 3 s. With the Network domain off, it stayed under 100 MB and the round passed.
 * Production has neither the dev proxy nor the inspector.
 *
 * This client sends `Network.disable` (and `Debugger.disable`, which the proxy sends `Debugger.enable`
 * for whenever a client is attached and the runtime reconnects), sends both again whenever the
 * runtime starts a new execution context (a reload), and drops every message it receives.
 * `CHATD_DEVTOOLS=1` leaves the seat free for Chrome DevTools or an IDE (the proxy takes one client).
 *
 * Since it holds the seat, it is also where a CPU profile of the worker is taken:
 * `CHATD_CPU_PROFILE=FILE` samples the runtime from start to stop and writes a `.cpuprofile`
 * (Chrome DevTools' Performance panel, or speedscope, opens it). `CHATD_HEAP_PROFILE=FILE` samples
 * its allocations, garbage included, and writes a `.heapprofile` (DevTools' Memory panel).
 */
import { writeFileSync } from "node:fs";
import { WebSocket } from "ws";
import { log } from "./log";

const ATTACH_TIMEOUT_MS = 10_000;
/**
 * The CPU profiler's sampling interval asked for. workerd 1.20261117 samples far less often (every
 * 4 to 10 ms in bench:relay and bench:turn profiles), and a sample after a quiet spell carries the
 * whole gap as its time delta: weigh a profile's functions by sample count, not by time.
 */
const PROFILE_SAMPLING_US = 200;
/** The sampling heap profiler's mean interval between samples (V8's default is 32 KiB). */
const HEAP_SAMPLING_BYTES = 16 * 1024;

export interface QuietInspector {
  /** Writes the CPU profile first if one was asked for. */
  close(): Promise<void>;
}

export async function quietInspector(inspectorPort: number): Promise<QuietInspector | undefined> {
  if (process.env.CHATD_DEVTOOLS === "1") return undefined;
  try {
    return await attach(inspectorPort);
  } catch (err) {
    // The dev server works without it, only heavier; never fail a start for it.
    log("warn", "inspector_quiet_failed", { inspector_port: inspectorPort, error: err instanceof Error ? err.message : String(err) });
    return undefined;
  }
}

async function attach(inspectorPort: number): Promise<QuietInspector> {
  const targets = (await (
    await fetch(`http://127.0.0.1:${inspectorPort}/json`, { signal: AbortSignal.timeout(ATTACH_TIMEOUT_MS) })
  ).json()) as {
    webSocketDebuggerUrl?: string;
  }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error("the inspector lists no target");
  // No User-Agent and no Origin: the proxy admits such a client as it does an IDE's.
  const ws = new WebSocket(url, { maxPayload: 256 * 1024 * 1024 });
  let nextId = 1_000_000_000;
  const send = (method: string, params?: object) => {
    const id = nextId++;
    ws.send(JSON.stringify({ id, method, params }));
    return id;
  };
  const quiet = () => {
    for (const method of ["Network.disable", "Debugger.disable"]) send(method);
  };
  const replies = new Map<number, (result: unknown) => void>();
  ws.on("message", (data) => {
    const text = data.toString();
    // Dropped, but a new execution context means the proxy enabled the Network domain again.
    if (text.includes('"Runtime.executionContextCreated"')) quiet();
    if (replies.size === 0 || !text.startsWith('{"id":')) return;
    const message = JSON.parse(text) as { id: number; result?: unknown };
    replies.get(message.id)?.(message.result);
  });
  ws.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the inspector did not accept a client")), ATTACH_TIMEOUT_MS);
    ws.once("open", () => {
      clearTimeout(timer);
      resolve();
    });
    ws.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    ws.once("close", (code, reason) => {
      clearTimeout(timer);
      reject(new Error(`the inspector closed the client (${code} ${reason.toString()})`));
    });
  });
  quiet();
  const ask = (method: string, params?: object) =>
    new Promise<unknown>((resolve) => {
      replies.set(send(method, params), resolve);
      setTimeout(() => resolve(undefined), ATTACH_TIMEOUT_MS);
    });
  const cpuFile = process.env.CHATD_CPU_PROFILE;
  const heapFile = process.env.CHATD_HEAP_PROFILE;
  if (cpuFile) {
    send("Profiler.enable");
    send("Profiler.setSamplingInterval", { interval: PROFILE_SAMPLING_US });
    send("Profiler.start");
    log("info", "cpu_profile_started", { file: cpuFile });
  }
  if (heapFile) {
    // Every allocation sampled, collected or not: where garbage comes from, not what stays.
    send("HeapProfiler.enable");
    send("HeapProfiler.startSampling", {
      samplingInterval: HEAP_SAMPLING_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    log("info", "heap_profile_started", { file: heapFile });
  }
  const write = (file: string, event: string, result: unknown) => {
    const profile = (result as { profile?: unknown } | undefined)?.profile;
    if (profile) writeFileSync(file, JSON.stringify(profile));
    log(profile ? "info" : "warn", event, { file, ok: Boolean(profile) });
  };
  return {
    close: async () => {
      if (cpuFile) write(cpuFile, "cpu_profile_written", await ask("Profiler.stop"));
      if (heapFile) write(heapFile, "heap_profile_written", await ask("HeapProfiler.stopSampling"));
      ws.terminate();
    },
  };
}
