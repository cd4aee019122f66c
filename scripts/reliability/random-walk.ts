/**
 * `npm run reliability:walk`: the long run of the model-based random walk (R1). Picks a seed (or
 * takes WALK_SEED), prints it, and runs the suite's test file against wrangler dev with the long
 * run's size: 50 chats, 3 users, WALK_RUNS runs of up to WALK_STEPS steps, within WALK_BUDGET_MS.
 * Every WALK_* variable the test reads passes through, so a failure's printed line
 * (WALK_SEED=... WALK_PATH=... npm run reliability:walk) replays its shrunk sequence.
 */
import { spawnSync } from "node:child_process";

const defaults: Record<string, string> = {
  WALK_SEED: String(Math.floor(Math.random() * 2 ** 31)),
  WALK_RUNS: "5",
  WALK_STEPS: "1500",
  WALK_CHATS: "50",
  WALK_USERS: "3",
  // 25 minutes for the runs and any shrinking.
  WALK_BUDGET_MS: "1500000",
};
const env: Record<string, string> = { ...defaults };
for (const [key, value] of Object.entries(process.env))
  if (key.startsWith("WALK_") && value !== undefined && value !== "") env[key] = value;
for (const key of ["WALK_SEED", "WALK_RUNS", "WALK_STEPS", "WALK_CHATS", "WALK_USERS", "WALK_BUDGET_MS"]) {
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
