/**
 * `npm run reliability:hostile`: the long run of the hostile-input suite (R4). Picks a seed (or
 * takes HOSTILE_SEED), prints it so a failure can be replayed, and runs the suite's test file
 * against wrangler dev with HOSTILE_COUNT requests (10,000 by default). The test logs progress.
 */
import { spawnSync } from "node:child_process";

const count = process.env.HOSTILE_COUNT ?? "10000";
const seed = process.env.HOSTILE_SEED ?? String(Math.floor(Math.random() * 2 ** 31));
if (!/^\d+$/.test(count) || !/^\d+$/.test(seed)) {
  console.error("HOSTILE_COUNT and HOSTILE_SEED must be whole numbers");
  process.exit(2);
}
console.log(
  JSON.stringify({
    event: "hostile_input_start",
    seed: Number(seed),
    count: Number(count),
    replay: `HOSTILE_SEED=${seed} HOSTILE_COUNT=${count} npm run reliability:hostile`,
  }),
);
const run = spawnSync("npx", ["vitest", "run", "--project", "e2e", "test/e2e/hostile-input.test.ts"], {
  stdio: "inherit",
  env: { ...process.env, HOSTILE_COUNT: count, HOSTILE_SEED: seed },
});
process.exit(run.status ?? 1);
