/**
 * `npm run reliability:db-restart`: the long run of R6's restart. Runs the database-restart test
 * file DB_RESTART_ROUNDS times (5 by default), each with a Postgres server of its own restarted
 * under DB_RESTART_CHATS (50) streaming chats. Prints a line per round and a summary; exits
 * non-zero if any round failed.
 */
import { spawnSync } from "node:child_process";

const rounds = Number(process.env.DB_RESTART_ROUNDS ?? "5");
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error("DB_RESTART_ROUNDS must be a whole number >= 1");
  process.exit(2);
}
const failed: number[] = [];
const started = Date.now();
for (let round = 1; round <= rounds; round++) {
  const run = spawnSync("npx", ["vitest", "run", "--project", "e2e", "test/e2e/database-restart.test.ts"], {
    encoding: "utf8",
    env: { ...process.env, CHATD_DB_RESTART: "1" },
    maxBuffer: 256 * 1024 * 1024,
  });
  const figures = /\{"event":"database_restart"[^\n]*\}/.exec(run.stdout)?.[0];
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
      event: "database_restart_round",
      round,
      of: rounds,
      passed: run.status === 0,
      ...(figures ? { figures: JSON.parse(figures) } : {}),
    }),
  );
}
console.log(JSON.stringify({ event: "database_restart_done", rounds, failed, seconds: Math.round((Date.now() - started) / 1000) }));
process.exit(failed.length === 0 ? 0 : 1);
