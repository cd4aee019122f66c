/**
 * The long run of a seeded suite that is one vitest file: picks a seed (or takes it from its
 * environment variable), prints it with the line that replays the run, and runs the file once
 * with the seed and a count (how many requests, rounds, ...) from the environment. The test
 * prints its own progress and figures.
 */
import { spawnSync } from "node:child_process";

export interface SeededRun {
  /** The e2e test file. */
  file: string;
  /** The printed start event, e.g. `hostile_input_start`. */
  event: string;
  /** The npm script that replays it, e.g. `reliability:hostile`. */
  script: string;
  seedVar: string;
  countVar: string;
  defaultCount: number;
}

export function runSeeded(opts: SeededRun): never {
  const count = process.env[opts.countVar] ?? String(opts.defaultCount);
  const seed = process.env[opts.seedVar] ?? String(Math.floor(Math.random() * 2 ** 31));
  if (!/^\d+$/.test(count) || !/^\d+$/.test(seed)) {
    console.error(`${opts.countVar} and ${opts.seedVar} must be whole numbers`);
    process.exit(2);
  }
  console.log(
    JSON.stringify({
      event: opts.event,
      seed: Number(seed),
      [opts.countVar.toLowerCase()]: Number(count),
      replay: `${opts.seedVar}=${seed} ${opts.countVar}=${count} npm run ${opts.script}`,
    }),
  );
  const run = spawnSync("npx", ["vitest", "run", "--project", "e2e", opts.file], {
    stdio: "inherit",
    env: { ...process.env, [opts.countVar]: count, [opts.seedVar]: seed },
  });
  process.exit(run.status ?? 1);
}
