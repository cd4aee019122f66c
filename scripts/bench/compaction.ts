/**
 * Issue 9's compaction figures: a long chat (200 turns by default) on a model with a 32k-token
 * window compacts automatically and keeps every prompt under the window, and the latency of a turn
 * that compacts against one that does not, measured in the same run. See docs/bench.md.
 *
 *   tsx scripts/bench/compaction.ts [--turns 200] [--window 32000] [--threshold 70] [--chars 1200] [--json FILE]
 *
 * The chat's model is the fake model as `fake-ctx<window>`: the fake model refuses any prompt over
 * the window with the provider's context-length error (the chat would end in error and the bench
 * fail), and reports each prompt's size (one token per 4 characters) as the step's usage. Each
 * user message is `--chars` characters; the model echoes it, so the prompt grows by about
 * chars / 2 tokens a turn until the chat trigger (threshold % of the window) fires.
 * Markdown on stdout, progress on stderr.
 */
import { writeFileSync } from "node:fs";
import pg from "pg";
import { log } from "../lib/log";
import { apiClient } from "./common/api";
import { parseBenchArgs, SESSION_FLAGS, wholeNumberOption } from "./common/parse-bench-args";
import { machineLine, runBench, type Session } from "./common/session";
import { fixed, median, minMax, ratio, sleep } from "./common/stats";

interface Options {
  turns: number;
  window: number;
  threshold: number;
  chars: number;
  timeoutMs: number;
  json: string | undefined;
  worktree: boolean;
  keep: boolean;
}

const USAGE = `usage: tsx scripts/bench/compaction.ts [options]
  --turns N        turns in the chat (default 200)
  --window N       the model's context window in tokens (default 32000)
  --threshold N    the model config's compression_threshold, percent (default 70)
  --chars N        characters per user message (default 1200)
  --timeout-ms N   per turn (default 60000)
  --json FILE      every turn's figures, the summary and the environment
  --worktree       serve the working tree instead of HEAD
  --keep           keep the run folder`;

function parseOptions(): Options {
  return parseBenchArgs(
    USAGE,
    {
      ...SESSION_FLAGS,
      turns: { type: "string", default: "200" },
      window: { type: "string", default: "32000" },
      threshold: { type: "string", default: "70" },
      chars: { type: "string", default: "1200" },
      "timeout-ms": { type: "string", default: "60000" },
    },
    (values) => {
      const int = wholeNumberOption;
      return {
        turns: int("turns", values.turns, 1, 10_000),
        window: int("window", values.window, 1000, 10_000_000),
        threshold: int("threshold", values.threshold, 1, 99),
        chars: int("chars", values.chars, 10, 1_000_000),
        timeoutMs: int("timeout-ms", values["timeout-ms"], 1000, 600_000),
        json: values.json,
        worktree: values.worktree,
        keep: values.keep,
      };
    },
  );
}

/** A deterministic message of exactly `chars` characters, different every turn. */
function message(turn: number, chars: number): string {
  const head = `turn ${turn}:`;
  let text = head;
  for (let i = 0; text.length < chars; i++) text += ` w${(turn * 7919 + i * 104729) % 100_000}`;
  return text.slice(0, chars);
}

interface Turn {
  turn: number;
  ms: number;
  /** The prompt of this turn's reply, as the model reported it. */
  promptTokens: number;
  compacted: boolean;
  /** The prompt of the step before the summary (what fired the trigger), when this turn compacted. */
  promptBeforeSummary?: number;
  /** The summary call's own prompt, as the model reported it. */
  summaryPrompt?: number;
}

async function main(session: Session, opts: Options): Promise<number> {
  const env = session.environment();
  log("info", "bench_start", { ...opts, run_dir: session.dir });
  const { stack, seeded } = await session.startStack();
  const chatd = await session.startChatd(stack, { cli: false });
  const api = apiClient(chatd.origin, seeded.token, opts.timeoutMs);
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  client.on("error", () => {});
  await client.connect();
  session.defer(() => client.end());

  // The chat model: the fake model with the bench's window, the organization's default.
  const providers = await api<{ id: string; name: string }[]>("GET", "/chats/providers");
  const provider = providers.find((p) => p.name === "fake");
  if (!provider) throw new Error("the dev seed's provider is missing");
  const model = `fake-ctx${opts.window}`;
  await api("POST", `/organizations/${seeded.organization_id}/chats/model-configs`, {
    provider_id: provider.id,
    model,
    context_limit: opts.window,
    compression_threshold: opts.threshold,
    is_default: true,
  });
  const triggerPoint = Math.floor((opts.window * opts.threshold) / 100);

  const waitForWaiting = async (chatId: string): Promise<void> => {
    const deadline = performance.now() + opts.timeoutMs;
    for (;;) {
      const { rows } = await client.query<{ status: string; last_error: string | null }>(
        "SELECT status, last_error FROM chats WHERE id = $1",
        [chatId],
      );
      if (rows[0]?.status === "waiting") return;
      if (rows[0]?.status === "error") throw new Error(`chat ${chatId} ended in error: ${rows[0].last_error}`);
      if (performance.now() > deadline) throw new Error(`turn of chat ${chatId} not done in ${opts.timeoutMs} ms`);
      await sleep(5);
    }
  };
  const steps = async (chatId: string) =>
    (
      await client.query<{ input: number | null; summary: boolean }>(
        `SELECT coalesce((usage->>'input_tokens')::int, (content->0->'result'->>'summary_input_tokens')::int) AS input,
                (compressed AND role = 'tool') AS summary
         FROM chat_messages WHERE chat_id = $1 AND NOT deleted AND ((role = 'assistant' AND NOT compressed) OR (role = 'tool' AND compressed))
         ORDER BY id`,
        [chatId],
      )
    ).rows;

  let chatId: string | undefined;
  const turns: Turn[] = [];
  for (let turn = 1; turn <= opts.turns && !session.interrupted; turn++) {
    const text = message(turn, opts.chars);
    const started = performance.now();
    if (chatId === undefined) {
      chatId = (await api<{ id: string }>("POST", "/chats", { content: [{ type: "text", text }] })).id;
    } else {
      await api("POST", `/chats/${chatId}/messages`, { content: [{ type: "text", text }] });
    }
    await waitForWaiting(chatId);
    const ms = performance.now() - started;
    const rows = await steps(chatId);
    const last = rows.at(-1);
    const summaryAt = rows.findLastIndex((r) => r.summary);
    const summariesBefore = turns.filter((t) => t.compacted).length;
    const compacted = rows.filter((r) => r.summary).length > summariesBefore;
    const record: Turn = { turn, ms, promptTokens: last?.input ?? Number.NaN, compacted };
    if (compacted) {
      record.promptBeforeSummary = rows.slice(0, summaryAt).findLast((r) => !r.summary)?.input ?? Number.NaN;
      record.summaryPrompt = rows[summaryAt]?.input ?? Number.NaN;
    }
    turns.push(record);
    log("info", "bench_turn", {
      turn,
      ms: Math.round(ms),
      prompt_tokens: record.promptTokens,
      ...(compacted ? { compacted: true, prompt_before_summary: record.promptBeforeSummary, summary_prompt: record.summaryPrompt } : {}),
    });
  }
  if (session.interrupted) return 130;

  const compactions = turns.filter((t) => t.compacted);
  const plain = turns.filter((t) => !t.compacted && t.turn > 1);
  const maxPrompt = Math.max(...turns.map((t) => t.promptTokens));
  const maxSummaryPrompt = Math.max(...compactions.map((t) => t.summaryPrompt ?? Number.NaN));
  const medCompacting = median(compactions.map((t) => t.ms));
  const medPlain = median(plain.map((t) => t.ms));
  // The turns just before each compaction have the largest prompts of the plain turns: a like-for-like pair.
  const before = compactions.map((c) => turns[c.turn - 2]).filter((t): t is Turn => t !== undefined && !t.compacted);
  const medBefore = median(before.map((t) => t.ms));

  const lines = [
    `### Compaction: ${turns.length} turns, ${opts.window.toLocaleString("en")}-token window (\`${model}\`), compression_threshold ${opts.threshold}% (trigger at ${triggerPoint.toLocaleString("en")} prompt tokens), ${opts.chars}-character messages echoed by the model`,
    "",
    `${machineLine(env, opts.worktree)}.`,
    "",
    `Every prompt stayed under the window: the largest turn prompt was ${maxPrompt.toLocaleString("en")} tokens (${fixed((maxPrompt / opts.window) * 100)}% of ${opts.window.toLocaleString("en")}), the largest summary prompt ${maxSummaryPrompt.toLocaleString("en")} (${fixed((maxSummaryPrompt / opts.window) * 100)}%); the fake model refuses a larger one, so a run that finishes proves it.`,
    "",
    "| compaction | turn | prompt before: the step that fired it (tokens) | the summary call's prompt | prompt after: the reply that follows | turn ms |",
    "|---|---|---|---|---|---|",
    ...compactions.map(
      (c, i) =>
        `| ${i + 1} | ${c.turn} | ${c.promptBeforeSummary?.toLocaleString("en")} | ${c.summaryPrompt?.toLocaleString("en")} | ${c.promptTokens.toLocaleString("en")} | ${fixed(c.ms)} |`,
    ),
    "",
    "| turn latency (ms), medians | turns | median | min–max |",
    "|---|---|---|---|",
    `| turns that compact (summary call + triplet commit + the reply) | ${compactions.length} | ${fixed(medCompacting)} | ${minMax(
      compactions.map((t) => t.ms),
    )
      .map((x) => fixed(x))
      .join("–")} |`,
    `| turns that do not (turn 1 excluded) | ${plain.length} | ${fixed(medPlain)} | ${minMax(plain.map((t) => t.ms))
      .map((x) => fixed(x))
      .join("–")} |`,
    `| the turn just before each compaction (largest prompts) | ${before.length} | ${fixed(medBefore)} | ${minMax(before.map((t) => t.ms))
      .map((x) => fixed(x))
      .join("–")} |`,
    "",
    `Ratio, compacting ÷ non-compacting turn (medians): **${ratio(medCompacting / medPlain)}**; against the turn just before each compaction: ${ratio(medCompacting / medBefore)}.`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  if (opts.json) {
    writeFileSync(opts.json, `${JSON.stringify({ options: opts, environment: env, turns }, null, 2)}\n`);
    log("info", "bench_json_written", { file: opts.json });
  }
  if (compactions.length === 0) {
    log("error", "bench_no_compaction", { note: "the chat never reached its trigger: more --turns or --chars" });
    return 1;
  }
  return 0;
}

const options = parseOptions();
await runBench({ keep: options.keep, worktree: options.worktree }, (session) => main(session, options));
