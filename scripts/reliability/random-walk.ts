/**
 * `npm run reliability:walk`: the long run of the model-based random walk (R1). Picks a seed (or
 * takes WALK_SEED), prints it, and runs the suite's test file against wrangler dev with the long
 * run's size: 50 chats, 3 users, runs of up to WALK_STEPS commands one after the other until
 * WALK_BUDGET_MS has passed (or WALK_RUNS runs; the run under way then is cut off): fast-check draws a run's length evenly up to
 * WALK_STEPS, so the number of runs, not one long run, makes the figure.
 * Every WALK_* variable the test reads passes through, so a failure's printed line
 * (WALK_SEED=... WALK_PATH=... npm run reliability:walk) replays its shrunk sequence.
 */
import { spawnSync } from "node:child_process";

const defaults: Record<string, string> = {
  WALK_SEED: String(Math.floor(Math.random() * 2 ** 31)),
  WALK_RUNS: "1000",
  WALK_STEPS: "1500",
  WALK_CHATS: "50",
  WALK_USERS: "3",
  // The walk stops after 12 minutes (a run cut off there is not counted).
  WALK_BUDGET_MS: "720000",
  WALK_RUN_TIMEOUT_MS: "300000",
};
const env: Record<string, string> = { ...defaults };
for (const [key, value] of Object.entries(process.env))
  if (key.startsWith("WALK_") && value !== undefined && value !== "") env[key] = value;
for (const key of Object.keys(defaults)) {
  if (!/^\d+$/.test(env[key]!)) {
    console.error(`${key} must be a whole number, got ${env[key]}`);
    process.exit(2);
  }
}
console.log(JSON.stringify({ event: "random_walk_start", ...env }));
const run = spawnSync("npx", ["vitest", "run", "--project", "e2e", "test/e2e/random-walk.test.ts"], {
  stdio: "inherit",
  env: { ...process.env, ...env },
});
process.exit(run.status ?? 1);
