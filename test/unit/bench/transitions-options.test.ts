/** The transitions bench's command line (scripts/bench/transitions/options.ts): defaults, lists, refusals. */
import { parseArgs } from "node:util";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../../scripts/bench/common/parse-bench-args";
import { FLAGS, readOptions } from "../../../scripts/bench/transitions/options";

const read = (args: string[], env: NodeJS.ProcessEnv = {}) => readOptions(parseArgs({ args, options: FLAGS }).values, env);

describe("bench:transitions options", () => {
  it("default to 1 and 50 chats, 10 cycles, 4 rounds, 2 warm-up cycles, no delay, no admission limit", () => {
    expect(read([])).toEqual({
      chats: [1, 50],
      cycles: 10,
      rounds: 4,
      warmup: 2,
      dbLatencyMs: 0,
      rootLimit: 0,
      json: undefined,
      keep: false,
    });
  });

  it("take the delay from --db-latency-ms, else from CHATD_DB_LATENCY_MS", () => {
    expect(read(["--db-latency-ms", "20"]).dbLatencyMs).toBe(20);
    expect(read([], { CHATD_DB_LATENCY_MS: "15" }).dbLatencyMs).toBe(15);
    expect(read(["--db-latency-ms", "0"], { CHATD_DB_LATENCY_MS: "15" }).dbLatencyMs).toBe(0);
  });

  it("read a list of chat counts", () => {
    expect(read(["--chats", "1, 5,50"]).chats).toEqual([1, 5, 50]);
  });

  it("refuse repeated or out-of-range counts, and a root limit that would refuse chats", () => {
    expect(() => read(["--chats", "1,1"])).toThrow(UsageError);
    expect(() => read(["--chats", "0"])).toThrow(UsageError);
    expect(() => read(["--cycles", "x"])).toThrow(UsageError);
    expect(() => read(["--root-limit", "10"])).toThrow(/at least the largest --chats/);
    expect(read(["--root-limit", "50"]).rootLimit).toBe(50);
  });
});
