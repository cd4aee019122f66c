/**
 * Linux /proc readings for the stream benches: which workerd process runs a worker, the ports it
 * listens on, its memory and CPU. Same definitions as scripts/bench/relay/devserver.mjs.
 */
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";

const read = (path: string): string => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};

export const comm = (pid: number): string => read(`/proc/${pid}/comm`).trim();
export const cmdline = (pid: number): string => read(`/proc/${pid}/cmdline`).split("\0").join(" ");
/** /proc/PID/stat from field 3 (state) on: index 1 is the ppid, 11/12 utime/stime. */
const statFields = (pid: number | string): string[] =>
  read(`/proc/${pid}/stat`)
    .replace(/^.*\) /, "")
    .split(" ");

/** Every process below `root`, depth first. */
export function descendants(root: number): number[] {
  const kids = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = Number(statFields(entry)[1]);
    const list = kids.get(ppid) ?? [];
    list.push(Number(entry));
    kids.set(ppid, list);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const kid of kids.get(pid) ?? []) {
      out.push(kid);
      walk(kid);
    }
  };
  walk(root);
  return out;
}

/** TCP ports the process listens on (IPv4). */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  for (const fd of fds) {
    try {
      const m = readlinkSync(`/proc/${pid}/fd/${fd}`).match(/^socket:\[(\d+)\]$/);
      if (m?.[1]) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  const ports: number[] = [];
  for (const line of read("/proc/net/tcp").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    // f[3] "0A" is LISTEN; f[9] the socket inode.
    if (f[3] === "0A" && f[9] !== undefined && inodes.has(f[9])) ports.push(Number.parseInt(f[1]?.split(":")[1] ?? "", 16));
  }
  return ports;
}

/** Resident set size and its high-water mark, in MiB. */
export function memory(pid: number): { rss: number; hwm: number } {
  const status = read(`/proc/${pid}/status`);
  const kib = (key: string) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+)`, "m"))?.[1] ?? Number.NaN);
  return { rss: kib("VmRSS") / 1024, hwm: kib("VmHWM") / 1024 };
}

/** Resets VmHWM to the current RSS (clear_refs 5); false where that is not allowed. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** CPU seconds (user + system, all threads) the processes have used so far. */
export function cpuSeconds(...pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const f = statFields(pid);
    if (f.length > 12) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks / 100; // USER_HZ
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the processes together use under 5% of a core over 300 ms (at most `maxMs`); returns the wait. */
export async function settle(pids: number[], maxMs = 15_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const before = cpuSeconds(...pids);
    await sleep(300);
    if (cpuSeconds(...pids) - before <= 0.015 || Date.now() - started > maxMs) return Date.now() - started;
  }
}

/** workerd processes on the machine that are not below `mine` (strays that would share the cores). */
export function strayWorkerds(mine: number[]): { pid: number; cmd: string }[] {
  const own = new Set(mine.flatMap((pid) => [pid, ...descendants(pid)]));
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => comm(pid) === "workerd" && !own.has(pid))
    .map((pid) => ({ pid, cmd: cmdline(pid).slice(0, 160) }));
}
