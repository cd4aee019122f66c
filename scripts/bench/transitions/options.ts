/** The command line of scripts/bench/transitions.ts (split out so a unit test can read it). */
import { type BenchFlagValues, parseBenchArgs, UsageError, wholeNumberOption } from "../common/parse-bench-args";
import { latencyFromEnv } from "../../lib/ws-proxy";

export interface Options {
  /** Chats driven concurrently, one scenario per entry (default 1 and 50). */
  chats: number[];
  /** Timed cycles per chat per round, per side. */
  cycles: number;
  /** Timed rounds per scenario; each runs both sides, alternating which goes first. */
  rounds: number;
  /** Untimed cycles per chat per side before the rounds (they also open the pools' connections). */
  warmup: number;
  /** One-way delay of the database proxy. */
  dbLatencyMs: number;
  /** The admission's root pool limit (CHAT_ROOT_CONCURRENCY); 0 is unlimited. */
  rootLimit: number;
  json: string | undefined;
  keep: boolean;
}

export const USAGE = `usage: tsx scripts/bench/transitions.ts [options]
  --chats LIST        comma-separated chat counts, one scenario each, the chats of a scenario
                      driven concurrently, each chat's cycles one after another (default 1,50)
  --cycles N          timed cycles per chat per round, per side (default 10)
  --rounds N          timed rounds per scenario; each round runs both sides, which goes first
                      alternating (default 4)
  --warmup N          untimed cycles per chat per side before the rounds (default 2)
  --db-latency-ms N   one-way delay of the database proxy (default: CHATD_DB_LATENCY_MS, else 0);
                      20 is a realistic edge-to-region distance (40 ms per round trip)
  --root-limit N      the admission's root pool limit, CHAT_ROOT_CONCURRENCY (default 0: unlimited;
                      a limit adds the pool's advisory lock and a slot count to every acquisition,
                      and must be at least the largest --chats or chats are refused)
  --json FILE         the options, environment, summary and every cycle's per-transaction times
  --keep              keep the run folder (Postgres data) for inspection`;

export const FLAGS = {
  chats: { type: "string", default: "1,50" },
  cycles: { type: "string", default: "10" },
  rounds: { type: "string", default: "4" },
  warmup: { type: "string", default: "2" },
  "db-latency-ms": { type: "string" },
  "root-limit": { type: "string", default: "0" },
  json: { type: "string" },
  keep: { type: "boolean", default: false },
} as const;

const MAX_CHATS = 200;

/** The options from parsed flags; a UsageError for a value out of range. */
export function readOptions(values: BenchFlagValues<typeof FLAGS>, env: NodeJS.ProcessEnv = process.env): Options {
  const int = wholeNumberOption;
  const chats = values.chats.split(",").map((raw) => int("chats", raw.trim(), 1, MAX_CHATS));
  if (new Set(chats).size !== chats.length) throw new UsageError(`--chats must not repeat a count, got "${values.chats}"`);
  const rootLimit = int("root-limit", values["root-limit"], 0, 100_000);
  if (rootLimit > 0 && rootLimit < Math.max(...chats))
    throw new UsageError(`--root-limit ${rootLimit} would refuse chats: it must be 0 or at least the largest --chats`);
  const rawLatency = values["db-latency-ms"];
  return {
    chats,
    cycles: int("cycles", values.cycles, 1, 10_000),
    rounds: int("rounds", values.rounds, 1, 1000),
    warmup: int("warmup", values.warmup, 0, 1000),
    dbLatencyMs: rawLatency === undefined ? latencyFromEnv(env) : int("db-latency-ms", rawLatency, 0, 10_000),
    rootLimit,
    json: values.json,
    keep: values.keep,
  };
}

export function parseOptions(argv?: string[]): Options {
  return parseBenchArgs(USAGE, FLAGS, (values) => readOptions(values), argv);
}
