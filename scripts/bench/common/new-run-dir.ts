import { chmodSync, mkdirSync, mkdtempSync } from "node:fs";
import { DATA_DIR } from "../../lib/paths";

const BENCH_RUNS_DIR = `${DATA_DIR}/bench-runs`;

/**
 * A fresh folder for one bench run under .data/bench-runs/, which the embedded Postgres (run as the
 * `postgres` OS user when we are root) can reach.
 */
export function newRunDir(): string {
  mkdirSync(BENCH_RUNS_DIR, { recursive: true, mode: 0o755 });
  const dir = mkdtempSync(`${BENCH_RUNS_DIR}/run-`);
  chmodSync(dir, 0o755);
  return dir;
}
