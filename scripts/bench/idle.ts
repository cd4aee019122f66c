/**
 * Issue 34, item 7: what an idle chat with open tabs costs. One chat, its turn over, with
 * --sockets stream sockets open, watched for --minutes while nothing happens; then a lost
 * notification (a version bump written straight to the database, which no notification announces)
 * and the time until every socket has its `queue_update`. Two sides in the same run, on the same
 * stack, one after the other: `today` (CHAT_STREAM_IDLE_POLL_MS=0: the active cadence always,
 * as before idle chats slept) and `idle` (the default).
 *
 *   tsx scripts/bench/idle.ts [--sockets 10] [--minutes 5] [--sides today,idle] [--json FILE]
 *
 * Counted over the quiet window: the object's wake-ups (its alarms, from its `object_alarm` debug
 * lines), database round trips and connections opened (the stack's database proxy), and how long
 * connections were held (summed over connections; the window's length for one held throughout).
 * Counts, not timings: they do not depend on the machine's load. Markdown on stdout, progress on
 * stderr.
 */
import { readFileSync, writeFileSync } from "node:fs";
import pg from "pg";
import { WebSocket } from "ws";
import { log } from "../lib/log";
import { apiClient, type ChatWire, streamUrl } from "./common/api";
import { parseBenchArgs, SESSION_FLAGS, UsageError, wholeNumberOption } from "./common/parse-bench-args";
import { machineLine, runBench, type Session } from "./common/session";
import { fixed, sleep } from "./common/stats";

const USAGE = `usage: tsx scripts/bench/idle.ts [options]
  --sockets N        stream sockets open on the idle chat (default 10)
  --minutes N        the quiet window per side (default 5)
  --sides LIST       today (CHAT_STREAM_IDLE_POLL_MS=0), idle (the default 60000); default both
  --json FILE        the figures, options and versions
  --worktree         run chatd from the working tree (default: HEAD's committed sources)
  --keep             keep the run folder (worker logs)`;

const FLAGS = {
  sockets: { type: "string", default: "10" },
  minutes: { type: "string", default: "5" },
  sides: { type: "string", default: "today,idle" },
  ...SESSION_FLAGS,
} as const;

const SIDES = { today: "0", idle: "60000" } as const;
type Side = keyof typeof SIDES;
/** How long the lost notification may take to heal before the bench gives up on it. */
const REPAIR_TIMEOUT_MS = 180_000;

const opts = parseBenchArgs(USAGE, FLAGS, (v) => {
  const sides = v.sides.split(",").map((s) => s.trim());
  for (const side of sides) if (!(side in SIDES)) throw new UsageError(`--sides: unknown side "${side}"`);
  return {
    sockets: wholeNumberOption("sockets", v.sockets, 1, 100),
    minutes: wholeNumberOption("minutes", v.minutes, 1, 120),
    sides: sides as Side[],
    json: v.json,
    keep: v.keep,
    worktree: v.worktree,
  };
});

interface SideResult {
  windowS: number;
  wakeUps: number;
  roundTrips: number;
  connectionsOpened: number;
  connectionHeldS: number;
  socketsClosed: number;
  repairMs: number | null;
}

async function main(session: Session): Promise<number> {
  const env = session.environment();
  log("info", "bench_start", { ...opts, run_dir: session.dir });
  const { stack, seeded } = await session.startStack();
  const results: Partial<Record<Side, SideResult>> = {};
  for (const side of opts.sides) {
    // The wrangler dev CLI: its log file has the Worker's own lines (the object's alarms).
    const worker = await session.startChatd(stack, {
      cli: true,
      label: side,
      vars: { CHAT_STREAM_IDLE_POLL_MS: SIDES[side], LOG_LEVEL: "debug" },
    });
    try {
      results[side] = await runSide(side, worker.origin, seeded.token, stack, `${session.dir}/${side}.log`, session);
    } finally {
      await worker.stop();
    }
    if (session.interrupted) return 130;
  }
  process.stdout.write(`${report(env, results)}\n`);
  if (opts.json) writeFileSync(opts.json, `${JSON.stringify({ options: opts, environment: env, results }, null, 2)}\n`);
  return 0;
}

async function runSide(
  side: Side,
  origin: string,
  token: string,
  stack: {
    databaseUrl: string;
    db: { resetCounters(): void; counters(): { roundTrips: number; connections: number; connectionMs: number } };
  },
  logFile: string,
  session: Session,
): Promise<SideResult> {
  const api = apiClient(origin, token);
  const chat = await api<ChatWire>("POST", "/chats", { content: [{ type: "text", text: "hello" }] });
  await waitFor(async () => (await api<ChatWire>("GET", `/chats/${chat.id}`)).status === "waiting", 60_000, "the first turn to end");
  const sockets = await Promise.all(Array.from({ length: opts.sockets }, () => openSocket(streamUrl(origin, chat.id, token))));
  // The bootstrap reads and the turn's last writes settle before the window opens.
  await sleep(2_000);
  stack.db.resetCounters();
  const logStart = readFileSync(logFile, "utf8").length;
  const windowMs = opts.minutes * 60_000;
  const started = performance.now();
  while (performance.now() - started < windowMs && !session.interrupted) {
    await sleep(Math.min(30_000, windowMs - (performance.now() - started)));
    const c = stack.db.counters();
    log("info", "bench_idle_progress", { side, elapsed_s: Math.round((performance.now() - started) / 1000), round_trips: c.roundTrips });
  }
  const windowS = (performance.now() - started) / 1000;
  const counters = stack.db.counters();
  const wakeUps = readFileSync(logFile, "utf8")
    .slice(logStart)
    .split("\n")
    .filter((l) => l.includes('"event":"object_alarm"')).length;
  const socketsClosed = sockets.filter((s) => s.ws.readyState !== WebSocket.OPEN).length;

  // A lost notification: the queue's version moves in the database and nobody is told.
  for (const s of sockets) s.queueUpdates = 0;
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  await client.query("UPDATE chats SET queue_version = queue_version + 1, snapshot_version = snapshot_version + 1 WHERE id = $1", [
    chat.id,
  ]);
  await client.end();
  const bumped = performance.now();
  let repairMs: number | null = null;
  try {
    await waitFor(async () => sockets.every((s) => s.queueUpdates > 0), REPAIR_TIMEOUT_MS, "every socket's queue_update");
    repairMs = performance.now() - bumped;
  } catch (err) {
    log("warn", "bench_idle_not_repaired", { side, error: String(err) });
  }
  for (const s of sockets) s.ws.close();
  const result: SideResult = {
    windowS,
    wakeUps,
    roundTrips: counters.roundTrips,
    connectionsOpened: counters.connections,
    connectionHeldS: counters.connectionMs / 1000,
    socketsClosed,
    repairMs,
  };
  log("info", "bench_side", { side, ...result });
  return result;
}

interface WatchedSocket {
  ws: WebSocket;
  queueUpdates: number;
}

/** A stream socket that counts the `queue_update` events it receives. */
async function openSocket(url: string): Promise<WatchedSocket> {
  const ws = new WebSocket(url);
  const watched: WatchedSocket = { ws, queueUpdates: 0 };
  ws.on("message", (data) => {
    if (String(data).includes('"queue_update"')) watched.queueUpdates++;
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return watched;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

function report(env: Record<string, unknown>, results: Partial<Record<Side, SideResult>>): string {
  const sides = opts.sides.filter((s) => results[s]);
  const row = (label: string, value: (r: SideResult) => string) => `| ${label} | ${sides.map((s) => value(results[s]!)).join(" | ")} |`;
  const perMinute = (n: number, r: SideResult) => `${n} (${fixed((n / r.windowS) * 60)}/min)`;
  return [
    `# An idle chat with ${opts.sockets} open sockets, ${opts.minutes} min per side`,
    "",
    machineLine(env, opts.worktree),
    "",
    `| figure | ${sides.join(" | ")} |`,
    `|---|${sides.map(() => "---").join("|")}|`,
    row("object wake-ups (alarms)", (r) => perMinute(r.wakeUps, r)),
    row("database round trips", (r) => perMinute(r.roundTrips, r)),
    row("connections opened", (r) => perMinute(r.connectionsOpened, r)),
    row(
      "connection time held",
      (r) => `${fixed(r.connectionHeldS)} s of ${fixed(r.windowS)} s (${fixed((r.connectionHeldS / r.windowS) * 100)}%)`,
    ),
    row("sockets closed meanwhile", (r) => String(r.socketsClosed)),
    row("lost notification healed after", (r) => (r.repairMs === null ? "not healed" : `${fixed(r.repairMs / 1000)} s`)),
  ].join("\n");
}

await runBench(opts, main);
