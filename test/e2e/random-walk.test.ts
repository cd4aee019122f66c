/**
 * R1, model-based random walk: fast-check draws sequences of public calls (create, send with queue
 * or interrupt, edit, delete and promote queued, interrupt, tool results, compact, clear, archive
 * with and without interrupt, unarchive, reconcile, another user's calls) and the fake model's
 * reply to each message (echo, a retried 503, a client tool call, a 400, a hang);
 * after every step the chat must match the reference model (test/support/random-walk/model.ts).
 * A failure shrinks to a minimal sequence and prints its seed and path for WALK_SEED=...
 * WALK_PATH=... to replay.
 *
 * `npm test` runs one seeded slice (5 chats, 2 users, up to 90 commands: 65 steps for seed 1);
 * `npm run reliability:walk` the long run (50 chats, 3 users). Over real HTTP against a `wrangler dev` with the chat worker on
 * and a database of its own, not SELF.fetch (see hostile-input.test.ts for why).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WranglerDev } from "../../scripts/lib/wrangler-dev";
import { createApiKey, TOKEN_LOGIN_TYPE } from "../../src/accounts/api-keys";
import { createUser } from "../../src/accounts/users";
import { REPLIES, type Reply, type WalkModel } from "../support/random-walk/model";
import { finishRun, stopRunning, type WalkReal, walkCommands } from "../support/random-walk/walk";
import { type Deployment, deployment } from "./support/deployment";

const num = (name: string, fallback: number) => {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number, got ${raw}`);
  return Number(raw);
};
const SEED = num("WALK_SEED", 1);
const RUNS = num("WALK_RUNS", 1);
const STEPS = num("WALK_STEPS", 90);
const CHATS = num("WALK_CHATS", 5);
const USERS = num("WALK_USERS", 2);
const PATH = process.env.WALK_PATH || undefined;
const REPLAY_PATH = process.env.WALK_REPLAY_PATH || undefined;
/**
 * The fake model's replies a message may draw (WALK_REPLIES narrows them). `flaky` (one retryable
 * 503, then the answer) found the lost alarm (docs/reliability.md, R1), fixed in AlarmClock.
 */
const REPLIES_DRAWN = (process.env.WALK_REPLIES || "echo,flaky,hang,tool,fail").split(",").map((r) => {
  if (!(REPLIES as readonly string[]).includes(r)) throw new Error(`WALK_REPLIES: unknown reply ${r} (one of ${REPLIES.join(", ")})`);
  return r as Reply;
});
/**
 * The long run's bound: the walk stops after this long (a run cut off there is not counted, and
 * shrinking stops there with the smallest failing sequence found so far). Unset (the npm test
 * slice): every drawn command must run, and only shrinking is bounded, by SLICE_SHRINK_MS.
 */
const BUDGET_MS = num("WALK_BUDGET_MS", 0);
const SLICE_SHRINK_MS = 150_000;
const TIMEOUT_MS = (BUDGET_MS || SLICE_SHRINK_MS) + num("WALK_RUN_TIMEOUT_MS", 90_000);

let dep: Deployment;
let dev: WranglerDev;
const tokens: string[] = [];

beforeAll(async () => {
  dep = await deployment("walk", {
    // Hanging chats must not hold back the others: no admission limit.
    CHAT_ROOT_CONCURRENCY: "0",
    // A hang fails an attempt after 60 s idle and is retried: 25 retries keep it hanging for the run.
    CHAT_MAX_GENERATION_RETRIES: "25",
    // A chat left in requires_action keeps waiting for the whole run.
    CHAT_REQUIRES_ACTION_TIMEOUT_MS: "3600000",
    CHAT_AUTO_ARCHIVE_DAYS: "0",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
  });
  dev = await dep.start();
  tokens.push(dep.token);
  const { rows } = await dep.own.pool.query<{ id: string }>(`SELECT id FROM organizations LIMIT 1`);
  for (let i = 1; i < USERS; i++) {
    const user = await createUser(dep.own.db, {
      email: `walk${i}@example.com`,
      username: `walk${i}`,
      siteRoles: [],
      organizationId: rows[0]!.id,
      role: "member",
    });
    const { token } = await createApiKey(dep.own.db, {
      userId: user.id,
      tokenName: "t",
      loginType: TOKEN_LOGIN_TYPE,
      expiresAt: new Date(Date.now() + 6 * 3_600_000),
    });
    tokens.push(token);
  }
}, 180_000);
afterAll(() => dep?.close());

describe(`random walk (seed ${SEED}, ${RUNS} run(s) of up to ${STEPS} steps, ${CHATS} chats, ${USERS} users)`, () => {
  it("every step matches the reference model", { timeout: TIMEOUT_MS }, async () => {
    const started = Date.now();
    let run = 0;
    let totalSteps = 0;
    let totalChats = 0;
    let mostChats = 0;
    const stats = new Map<string, number>();
    const property = fc.asyncProperty(walkCommands(STEPS, { replayPath: REPLAY_PATH, replies: REPLIES_DRAWN }), async (cmds) => {
      run += 1;
      const real: WalkReal = {
        base: dev.url,
        tokens,
        pool: dep.own.pool,
        tag: `r${run}x${Date.now().toString(36)}`,
        counter: 0,
        maxChats: CHATS,
        steps: 0,
        stats,
        onStep: (line) => console.log(line),
        seen: new Map(),
        versions: new Map(),
        settleMs: num("WALK_SETTLE_MS", 30_000),
      };
      const model: WalkModel = { chats: [] };
      try {
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        await finishRun(model, real);
      } catch (err) {
        // The first failure as it happened, before shrinking (which may take long on a long run).
        console.log(JSON.stringify({ event: "random_walk_run_failed", run, steps: real.steps, error: String(err).slice(0, 3000) }));
        throw err;
      } finally {
        totalSteps += real.steps;
        totalChats += model.chats.length;
        mostChats = Math.max(mostChats, model.chats.length);
        console.log(
          JSON.stringify({ event: "random_walk_run", run, steps: real.steps, chats: model.chats.length, ms: Date.now() - started }),
        );
        await stopRunning(model, real);
      }
    });
    const details = await fc.check(property, {
      seed: SEED,
      // A replay runs the shrunk case alone: its path starts with the failing run's index.
      numRuns: PATH ? Number(PATH.split(":")[0]) + 1 : RUNS,
      ...(PATH ? { path: PATH } : {}),
      // WALK_SHRINK=0: stop at the first failure (a quick look); a replayed path is already shrunk.
      endOnFailure: PATH !== undefined || process.env.WALK_SHRINK === "0",
      interruptAfterTimeLimit: BUDGET_MS || SLICE_SHRINK_MS,
    });
    const summary = {
      event: "random_walk",
      seed: SEED,
      runs: run,
      interrupted: details.interrupted,
      steps: totalSteps,
      chats: totalChats,
      most_chats_in_a_run: mostChats,
      users: USERS,
      ms: Date.now() - started,
    };
    console.log(JSON.stringify(summary));
    // What the walk exercised: each call from each state, and where it landed or how it was refused.
    console.log(JSON.stringify({ event: "random_walk_coverage", transitions: Object.fromEntries([...stats].sort()) }));
    // The slice must walk all it drew: cut off by its bound without a failure, it checked too little.
    if (!details.failed && details.interrupted && BUDGET_MS === 0)
      expect.fail(`the slice was cut off after ${SLICE_SHRINK_MS} ms with ${totalSteps} steps walked: it must finish`);
    if (details.failed) {
      const shown = details.counterexample ? String(details.counterexample[0]) : "(interrupted before a counterexample)";
      const replayPath = /replayPath="([^"]*)"/.exec(shown)?.[1];
      console.log(
        JSON.stringify({
          event: "random_walk_failure",
          seed: details.seed,
          path: details.counterexamplePath,
          replay: `WALK_SEED=${details.seed} WALK_PATH=${details.counterexamplePath ?? ""}${replayPath ? ` WALK_REPLAY_PATH=${replayPath}` : ""} WALK_CHATS=${CHATS} WALK_USERS=${USERS} WALK_STEPS=${STEPS} WALK_REPLIES=${REPLIES_DRAWN.join(",")} npm run reliability:walk`,
        }),
      );
      expect.fail(`seed ${details.seed}, path ${details.counterexamplePath}: ${shown}\n${details.errorInstance ?? ""}`);
    }
  });
});
