/**
 * `npm run reliability:notifications`: the long run of R3. Runs the notification-faults test file
 * once with NOTIFICATION_FAULTS_TURNS turns (1,000 by default) and NOTIFICATION_FAULTS_SEED (a
 * random seed by default, printed first: pass it back to replay the same workload and the same
 * fault draws). Prints the test's progress lines as they come and its figures at the end; exits
 * non-zero if the run failed.
 */
import { spawn } from "node:child_process";

const turns = Number(process.env.NOTIFICATION_FAULTS_TURNS ?? "1000");
const seed = Number(process.env.NOTIFICATION_FAULTS_SEED ?? String(Math.floor(Math.random() * 2 ** 31)));
if (!Number.isInteger(turns) || turns < 1 || !Number.isInteger(seed) || seed < 0) {
  console.error("NOTIFICATION_FAULTS_TURNS must be a whole number >= 1 and NOTIFICATION_FAULTS_SEED a whole number >= 0");
  process.exit(2);
}
console.log(JSON.stringify({ event: "notification_faults_start", turns, seed }));
const started = Date.now();
const child = spawn("npx", ["vitest", "run", "--project", "e2e", "test/e2e/notification-faults.test.ts"], {
  env: { ...process.env, NOTIFICATION_FAULTS_TURNS: String(turns), NOTIFICATION_FAULTS_SEED: String(seed) },
  stdio: ["ignore", "pipe", "pipe"],
});
let output = "";
let pending = "";
child.stdout.on("data", (chunk: Buffer) => {
  output += chunk;
  pending += chunk;
  const lines = pending.split("\n");
  pending = lines.pop() ?? "";
  for (const line of lines) {
    const json = /\{"event":"notification_faults[^\n]*\}/.exec(line)?.[0];
    if (json) console.log(json);
  }
});
child.stderr.on("data", (chunk: Buffer) => {
  output += chunk;
});
child.on("exit", (code) => {
  if (code !== 0)
    process.stdout.write(
      output
        .split("\n")
        .filter((l) => !l.includes('{"level":'))
        .join("\n"),
    );
  console.log(
    JSON.stringify({
      event: "notification_faults_done",
      passed: code === 0,
      seed,
      turns,
      seconds: Math.round((Date.now() - started) / 1000),
    }),
  );
  process.exit(code === 0 ? 0 : 1);
});
