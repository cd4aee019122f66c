/**
 * Issue 10's subagent figure: a parent spawning N children (10) that each stream T tokens (500),
 * time until the parent has every answer, against N independent root chats started at once, in
 * the same run (ratio, one run). See docs/bench.md.
 *
 *   tsx scripts/bench/subagent-fanout.ts [--children 10] [--tokens 500] [--json FILE]
 *
 * The fake model drives the parent: its first message is `/parallel` of N spawn_agent calls (the
 * children's prompt is `/long T`), its second `/parallel` of N wait_agent calls with the ids the
 * first turn returned. The clock runs from the POST that creates the parent to the commit of the
 * wait_agent results (the moment the parent holds every answer), read from Postgres. The baseline
 * POSTs N root chats with the same prompt at once and stops when the last one is waiting.
 * CHAT_ROOT_CONCURRENCY is lifted to 0 (no limit) unless set in the environment, so the baseline's
 * N roots are not queued behind the default 5 root slots (children have their own 10).
 * Markdown on stdout, progress on stderr.
 */
import { writeFileSync } from "node:fs";
import pg from "pg";
import { log } from "../lib/log";
import { apiClient } from "./common/api";
import { parseBenchArgs, SESSION_FLAGS, wholeNumberOption } from "./common/parse-bench-args";
import { machineLine, runBench, type Session } from "./common/session";
import { fixed, ratio, sleep } from "./common/stats";

interface Options {
  children: number;
  tokens: number;
  timeoutMs: number;
  json: string | undefined;
  worktree: boolean;
  keep: boolean;
}

const USAGE = `usage: tsx scripts/bench/subagent-fanout.ts [options]
  --children N     children of the parent, and independent chats of the baseline (default 10, at most 10: the subagent pool)
  --tokens N       tokens each child streams (default 500)
  --timeout-ms N   per phase (default 120000)
  --json FILE      the figures and the environment
  --worktree       serve the working tree instead of HEAD
  --keep           keep the run folder`;

function parseOptions(): Options {
  return parseBenchArgs(
    USAGE,
    {
      ...SESSION_FLAGS,
      children: { type: "string", default: "10" },
      tokens: { type: "string", default: "500" },
      "timeout-ms": { type: "string", default: "120000" },
    },
    (values) => {
      const int = wholeNumberOption;
      return {
        children: int("children", values.children, 1, 10),
        tokens: int("tokens", values.tokens, 1, 100_000),
        timeoutMs: int("timeout-ms", values["timeout-ms"], 1000, 600_000),
        json: values.json,
        worktree: values.worktree,
        keep: values.keep,
      };
    },
  );
}

async function main(session: Session, opts: Options): Promise<number> {
  process.env.CHAT_ROOT_CONCURRENCY ??= "0";
  // One user fans out every subagent: the per-user share would cap what the bench measures.
  process.env.CHAT_SUBAGENT_CONCURRENCY_PER_USER ??= "0";
  process.env.CHAT_SUBAGENT_CONCURRENCY_PER_ORGANIZATION ??= "0";
  const env = session.environment();
  log("info", "bench_start", { ...opts, run_dir: session.dir, root_concurrency: process.env.CHAT_ROOT_CONCURRENCY });
  const { stack, seeded } = await session.startStack();
  const chatd = await session.startChatd(stack, { cli: false });
  const api = apiClient(chatd.origin, seeded.token, opts.timeoutMs);
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  client.on("error", () => {});
  await client.connect();
  session.defer(() => client.end());

  const prompt = `/long ${opts.tokens}`;
  const until = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
    const deadline = performance.now() + opts.timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (performance.now() > deadline) throw new Error(`${what}: not done in ${opts.timeoutMs} ms`);
      await sleep(5);
    }
  };
  const statusOf = async (ids: string[]) =>
    (
      await client.query<{ id: string; status: string; last_error: string | null }>(
        "SELECT id, status, last_error FROM chats WHERE id = ANY($1)",
        [ids],
      )
    ).rows;
  const allWaiting = (ids: string[]) => async () => {
    const rows = await statusOf(ids);
    const failed = rows.find((r) => r.status === "error");
    if (failed) throw new Error(`chat ${failed.id} ended in error: ${failed.last_error}`);
    return rows.length === ids.length && rows.every((r) => r.status === "waiting") ? true : undefined;
  };
  /** The results of the chat's latest tool message, once it has one after message `afterId`. */
  const toolResults = (chatId: string, afterId: number) => async () => {
    const { rows } = await client.query<{
      id: string;
      content: { type: string; tool_name: string; result: Record<string, unknown>; is_error: boolean }[];
    }>("SELECT id, content FROM chat_messages WHERE chat_id = $1 AND role = 'tool' AND id > $2 ORDER BY id DESC LIMIT 1", [
      chatId,
      afterId,
    ]);
    return rows[0] && { id: Number(rows[0].id), results: rows[0].content.filter((p) => p.type === "tool-result") };
  };

  // Fan-out: one parent, N children.
  const spawnCalls = Array.from({ length: opts.children }, (_, i) => ({ name: "spawn_agent", args: { prompt, title: `child ${i + 1}` } }));
  const started = performance.now();
  const parent = (
    await api<{ id: string }>("POST", "/chats", { content: [{ type: "text", text: `/parallel ${JSON.stringify(spawnCalls)}` }] })
  ).id;
  const spawned = await until("the spawns", toolResults(parent, 0));
  const spawnedAt = performance.now() - started;
  const childIds = spawned.results.map((r) => {
    if (r.is_error) throw new Error(`spawn_agent failed: ${JSON.stringify(r.result)}`);
    return String(r.result.agent_id);
  });
  await until("the parent's first turn", allWaiting([parent]));
  const waitCalls = childIds.map((id) => ({ name: "wait_agent", args: { agent_id: id, timeout_seconds: 600 } }));
  await api("POST", `/chats/${parent}/messages`, { content: [{ type: "text", text: `/parallel ${JSON.stringify(waitCalls)}` }] });
  const waited = await until("the waits", toolResults(parent, spawned.id));
  const fanoutMs = performance.now() - started;
  for (const r of waited.results) {
    const answer = String(r.result.answer ?? "");
    if (r.is_error || r.result.done !== true || answer.split(" ").length !== opts.tokens)
      throw new Error(`a wait did not return a full answer: ${JSON.stringify(r.result).slice(0, 300)}`);
  }
  log("info", "bench_fanout", { ms: Math.round(fanoutMs), spawned_ms: Math.round(spawnedAt) });
  await until("the parent's second turn", allWaiting([parent]));

  // Baseline: N independent root chats at once.
  const baseStarted = performance.now();
  const roots = await Promise.all(
    Array.from(
      { length: opts.children },
      async () => (await api<{ id: string }>("POST", "/chats", { content: [{ type: "text", text: prompt }] })).id,
    ),
  );
  await until("the independent chats", allWaiting(roots));
  const baselineMs = performance.now() - baseStarted;
  log("info", "bench_baseline", { ms: Math.round(baselineMs) });

  const lines = [
    `### Subagent fan-out: ${opts.children} children × ${opts.tokens} tokens (\`${prompt}\`), against ${opts.children} independent chats`,
    "",
    `${machineLine(env, opts.worktree)}. CHAT_ROOT_CONCURRENCY=${process.env.CHAT_ROOT_CONCURRENCY}, subagent pool 10. One run.`,
    "",
    "| | ms |",
    "|---|---|",
    `| parent: POST to the spawn_agent results committed (${opts.children} children created and started) | ${fixed(spawnedAt)} |`,
    `| parent: POST to the wait_agent results committed (every answer in hand) | ${fixed(fanoutMs)} |`,
    `| baseline: ${opts.children} POST /chats at once to the last one waiting | ${fixed(baselineMs)} |`,
    "",
    `Ratio, fan-out ÷ independent chats: **${ratio(fanoutMs / baselineMs)}**. The fan-out includes two parent turns (the spawn turn and its reply, then the wait turn) that the baseline does not have.`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  if (opts.json) {
    writeFileSync(opts.json, `${JSON.stringify({ options: opts, environment: env, spawnedAt, fanoutMs, baselineMs }, null, 2)}\n`);
    log("info", "bench_json_written", { file: opts.json });
  }
  return 0;
}

const options = parseOptions();
await runBench({ keep: options.keep, worktree: options.worktree }, (session) => main(session, options));
