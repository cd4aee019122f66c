/**
 * `npm run reliability:crash`: the long run of R2. Runs the crash-chaos test file once with
 * CRASH_KILLS kills (200 by default) on one deployment, a random seed unless CRASH_SEED is set
 * (printed first, so any failure can be replayed). Unlike the `npm test` slice it records a failed
 * round and goes on (CRASH_KEEP_GOING), so one run shows every failure. Prints a line per round
 * as it goes and the figures at the end; exits non-zero if any round failed.
 * CRASH_BUDGET_S bounds the run (default: 40 s per kill); a run stopped by it says so.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const kills = Number(process.env.CRASH_KILLS ?? "200");
if (!Number.isInteger(kills) || kills < 1) {
  console.error("CRASH_KILLS must be a whole number >= 1");
  process.exit(2);
}
const seed = process.env.CRASH_SEED ?? String(Math.floor(Math.random() * 2 ** 31));
const budget = process.env.CRASH_BUDGET_S ?? String(kills * 40);
console.log(JSON.stringify({ event: "crash_run", seed: Number(seed), kills, budget_s: Number(budget) }));

const started = Date.now();
const child = spawn("npx", ["vitest", "run", "--project", "e2e", "test/e2e/crash-chaos.test.ts", "-t", "crash chaos"], {
  env: { ...process.env, CRASH_KILLS: String(kills), CRASH_SEED: seed, CRASH_BUDGET_S: budget, CRASH_KEEP_GOING: "1" },
  stdio: ["ignore", "pipe", "pipe"],
});
// Progress and figures are the test's JSON lines; the rest is kept for a failure's report.
const rest: string[] = [];
let figures: Record<string, unknown> | null = null;
for (const stream of [child.stdout, child.stderr]) {
  createInterface({ input: stream }).on("line", (line) => {
    const json = /\{"event":"crash_[a-z_]+".*\}/.exec(line)?.[0];
    if (json) {
      console.log(json);
      if (json.startsWith('{"event":"crash_figures"')) figures = JSON.parse(json) as Record<string, unknown>;
    } else rest.push(line);
  });
}
const code: number = await new Promise((resolve) => child.once("exit", (c) => resolve(c ?? 1)));
if (code !== 0) process.stdout.write(`${rest.join("\n")}\n`);
console.log(
  JSON.stringify({ event: "crash_run_done", seed: Number(seed), exit: code, seconds: Math.round((Date.now() - started) / 1000), figures }),
);
process.exit(code);
