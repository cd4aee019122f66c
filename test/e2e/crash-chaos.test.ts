/**
 * R2, crash chaos (test/e2e/support/crash-chaos.ts): the runtime SIGKILLed at random instants and
 * restarted on the same storage; no answered request lost or doubled, every chat settled, every
 * stream client caught up exactly. `npm test` runs a short slice (CRASH_KILLS, 2 by default, its
 * seed derived from the commit); `npm run reliability:crash` runs the long one through this file.
 */
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { CrashChaos } from "./support/crash-chaos";
import { type Deployment, deployment } from "./support/deployment";
import { slowSummarizer } from "./support/slow-summarizer";

const kills = Number(process.env.CRASH_KILLS ?? "2");
const seed = process.env.CRASH_SEED ? Number(process.env.CRASH_SEED) : seedOfCommit();
const fromRound = Number(process.env.CRASH_FROM_ROUND ?? "0");
/** The long run records a failed round and goes on; the slice stops at the first. */
const keepGoing = process.env.CRASH_KEEP_GOING === "1";
/** A round takes ~10 s (a restart is most of it); the long run may set its own bound. */
const budgetMs = Number(process.env.CRASH_BUDGET_S ?? String(60 + kills * 25)) * 1000;

/**
 * The slice's seed: from the commit under test, so a CI run is repeatable (the same commit kills at
 * the same instants) while each commit tries new ones. Printed in the test's name. Outside a git
 * checkout: seed 1.
 */
function seedOfCommit(): number {
  try {
    const head = execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    return Number.parseInt(head.slice(0, 8), 16) % 2 ** 31;
  } catch {
    return 1;
  }
}

let d: Deployment | undefined;
let summarizer: Awaited<ReturnType<typeof slowSummarizer>> | undefined;
afterAll(async () => {
  await d?.close();
  await summarizer?.close();
});

describe("crash chaos", () => {
  it(`loses and duplicates nothing across ${kills} kills (seed ${seed})`, { timeout: budgetMs + 60_000 }, async () => {
    expect(Number.isInteger(kills) && kills >= 1, "CRASH_KILLS must be a whole number >= 1").toBe(true);
    expect(Number.isInteger(seed), "CRASH_SEED must be an integer").toBe(true);
    console.log(JSON.stringify({ event: "crash_start", seed, kills, from_round: fromRound }));
    d = await deployment("crash", { CHAT_ROOT_CONCURRENCY: "20", CHAT_STREAM_SYNC_POLL_MS: "2000" });
    // Summaries take 0.6 s, so a kill can land while one is in flight.
    summarizer = await slowSummarizer(d, 600);
    const chaos = await CrashChaos.start(d, (line) => console.log(JSON.stringify(line)));
    const figures = await chaos.run({ seed, kills, fromRound, keepGoing, deadlineAt: Date.now() + budgetMs }).catch((err: Error) => {
      const trouble = (d?.logOf("chaos") ?? "")
        .split("\n")
        .filter((l) => /"level":"(warn|error)"|Uncaught/.test(l))
        .slice(-25)
        .join("\n");
      throw new Error(`${err.message}\nThe runtime's last warnings:\n${trouble}`);
    });
    console.log(JSON.stringify({ event: "crash_figures", ...figures, summary_calls: summarizer.requests() }));
    expect(figures.failures.map((f) => f.message).join("\n\n"), "failed rounds").toBe("");
    expect(figures.lost).toBe(0);
    expect(figures.duplicated).toBe(0);
    // A run cut short by its time bound says so; the slice must do all its kills.
    if (!process.env.CRASH_BUDGET_S) expect(figures.kills).toBe(kills);
  });
});
