/**
 * The long run of a suite that is one vitest file: runs it N times (N from an environment
 * variable), prints one JSON line per round (with the figures line the test printed, when it did)
 * and a summary, and exits non-zero if any round failed. A failed round's output is shown.
 */
import { spawnSync } from "node:child_process";

export interface TestRounds {
  /** The e2e test file, e.g. `test/e2e/database-faults.test.ts`. */
  file: string;
  /** Prefix of the printed events (`<event>_round`, `<event>_done`) and the event of the test's figures line. */
  event: string;
  /** The environment variable giving the number of rounds, and its default. */
  roundsVar: string;
  defaultRounds: number;
  /** Extra environment for the test run. */
  env?: Record<string, string>;
}

export function runTestRounds(opts: TestRounds): never {
  const raw = process.env[opts.roundsVar] ?? String(opts.defaultRounds);
  const rounds = Number(raw);
  if (!Number.isInteger(rounds) || rounds < 1) {
    console.error(`${opts.roundsVar} must be a whole number >= 1, got "${raw}"`);
    process.exit(2);
  }
  const figuresLine = new RegExp(`\\{"event":"${opts.event}"[^\\n]*\\}`);
  const failed: number[] = [];
  const started = Date.now();
  for (let round = 1; round <= rounds; round++) {
    const run = spawnSync("npx", ["vitest", "run", "--project", "e2e", opts.file], {
      encoding: "utf8",
      env: { ...process.env, ...opts.env },
      maxBuffer: 256 * 1024 * 1024,
    });
    const figures = figuresLine.exec(run.stdout)?.[0];
    if (run.status !== 0) {
      failed.push(round);
      process.stdout.write(
        run.stdout
          .split("\n")
          .filter((l) => !l.startsWith('{"'))
          .join("\n"),
      );
      process.stdout.write(run.stderr);
    }
    console.log(
      JSON.stringify({
        event: `${opts.event}_round`,
        round,
        of: rounds,
        passed: run.status === 0,
        ...(figures ? { figures: JSON.parse(figures) } : {}),
      }),
    );
  }
  console.log(JSON.stringify({ event: `${opts.event}_done`, rounds, failed, seconds: Math.round((Date.now() - started) / 1000) }));
  process.exit(failed.length === 0 ? 0 : 1);
}
