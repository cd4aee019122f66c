/**
 * `npm run reliability:hostile`: the long run of the hostile-input suite (R4). Picks a seed (or
 * takes HOSTILE_SEED), prints it so a failure can be replayed, and runs the suite's test file
 * against wrangler dev with HOSTILE_COUNT requests (10,000 by default). The test logs progress.
 */
import { runSeeded } from "./seeded-run";

runSeeded({
  file: "test/e2e/hostile-input.test.ts",
  event: "hostile_input_start",
  script: "reliability:hostile",
  seedVar: "HOSTILE_SEED",
  countVar: "HOSTILE_COUNT",
  defaultCount: 10_000,
});
