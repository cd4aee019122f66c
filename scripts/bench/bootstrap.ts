/**
 * Issue 6, P4: the bootstrap of a chat with a long history. Time from opening
 * `GET /chats/{chat}/stream` to the bootstrap's `status` event, against a bare Durable Object that
 * answers a WebSocket with a raw SELECT of the same rows, JSON-encoded, through the same Neon
 * driver and proxy (scripts/bench/bootstrap/worker.js), measured in the same run. See docs/bench.md.
 *
 *   tsx scripts/bench/bootstrap.ts [--messages 10000] [--reps 10] [--warmup 2] [--inspector] [--json FILE]
 */
import { writeFileSync } from "node:fs";
import pg from "pg";
import WebSocket from "ws";
import { log } from "../lib/log";
import { ROOT_DIR } from "../lib/paths";
import { apiClient, type ChatWire, streamUrl } from "./common/api";
import { settle } from "./common/proc";
import { parseBenchArgs, SESSION_FLAGS, wholeNumberOption } from "./common/parse-bench-args";
import { machineLine, runBench, type Session } from "./common/session";
import { fixed, median, minMax, ratio, sleep } from "./common/stats";

const USER_CHARS = 200;
const ASSISTANT_CHARS = 800;

const USAGE = `usage: tsx scripts/bench/bootstrap.ts [options]
  --messages N     messages in the chat, alternating user (${USER_CHARS} chars) and assistant (${ASSISTANT_CHARS} chars); default 10000
  --reps N         timed bootstraps per side (default 10)
  --warmup N       untimed bootstraps per side first (default 2)
  --gap-ms N       idle time before each measurement, after both workerd are idle (default 200)
  --inspector      run chatd under the \`wrangler dev\` CLI (inspector on) instead of startWorker
  --timeout-ms N   per bootstrap (default 60000)
  --json FILE      every rep's figures, the summary, options and versions
  --worktree       run chatd from the working tree (default: HEAD's committed sources)
  --keep           keep the run folder`;

interface Options {
  messages: number;
  reps: number;
  warmup: number;
  gapMs: number;
  inspector: boolean;
  timeoutMs: number;
  json: string | undefined;
  worktree: boolean;
  keep: boolean;
}

function parseOptions(): Options {
  return parseBenchArgs(
    USAGE,
    {
      ...SESSION_FLAGS,
      messages: { type: "string", default: "10000" },
      reps: { type: "string", default: "10" },
      warmup: { type: "string", default: "2" },
      "gap-ms": { type: "string", default: "200" },
      inspector: { type: "boolean", default: false },
      "timeout-ms": { type: "string", default: "60000" },
    },
    (values) => {
      const int = wholeNumberOption;
      return {
        messages: int("messages", values.messages, 1, 1_000_000),
        reps: int("reps", values.reps, 1, 1000),
        warmup: int("warmup", values.warmup, 0, 1000),
        gapMs: int("gap-ms", values["gap-ms"], 0, 60_000),
        inspector: values.inspector,
        timeoutMs: int("timeout-ms", values["timeout-ms"], 1000, 600_000),
        json: values.json,
        worktree: values.worktree,
        keep: values.keep,
      };
    },
  );
}

/**
 * The chat's history, written as one transaction would write it: the chat row's snapshot_version
 * is bumped first (as every ChatTx does), then the rows are inserted; the spec's trigger gives each
 * row revision = that snapshot_version and sets the chat's history_version to it (and
 * generation_attempt to 0), so the chat's versions stay consistent.
 */
async function seedHistory(client: pg.Client, chatId: string, userId: string, messages: number): Promise<Record<string, unknown>> {
  const started = performance.now();
  await client.query("BEGIN");
  try {
    await client.query("UPDATE chats SET snapshot_version = snapshot_version + 1, updated_at = now() WHERE id = $1", [chatId]);
    await client.query(
      `INSERT INTO chat_messages (chat_id, role, content, created_by)
       SELECT $1::uuid,
              CASE WHEN g % 2 = 1 THEN 'user' ELSE 'assistant' END,
              jsonb_build_array(jsonb_build_object('type', 'text', 'text',
                left(repeat(md5(g::text) || ' ', 40), CASE WHEN g % 2 = 1 THEN ${USER_CHARS} ELSE ${ASSISTANT_CHARS} END))),
              CASE WHEN g % 2 = 1 THEN $2::uuid END
       FROM generate_series(1, $3::int) AS g
       ORDER BY g`,
      [chatId, userId, messages],
    );
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  }
  const {
    rows: [state],
  } = await client.query(
    `SELECT c.snapshot_version, c.history_version, c.queue_version, c.generation_attempt, c.status,
            count(m.*)::int AS messages, min(m.revision) AS min_revision, max(m.revision) AS max_revision,
            sum(octet_length(m.content::text))::bigint AS content_bytes
     FROM chats c LEFT JOIN chat_messages m ON m.chat_id = c.id
     WHERE c.id = $1 GROUP BY c.id`,
    [chatId],
  );
  const seeded = { ...(state as Record<string, unknown>), seed_ms: Math.round(performance.now() - started) };
  const s = state as { snapshot_version: string; history_version: string; max_revision: string; min_revision: string; messages: number };
  if (
    s.messages !== messages ||
    s.history_version !== s.snapshot_version ||
    s.min_revision !== s.snapshot_version ||
    s.max_revision !== s.snapshot_version
  )
    throw new Error(`the seeded chat is inconsistent: ${JSON.stringify(seeded)}`);
  return seeded;
}

interface Bootstrap {
  /** new WebSocket → the upgrade's 101 (for chatd: auth, the ownership check, the object's fetch). */
  openMs: number;
  firstFrameMs: number;
  /** new WebSocket → the frame that ends the bootstrap (chatd: the one with the `status` event; baseline: `done`). */
  endMs: number;
  frames: number;
  bytes: number;
  /** Messages (chatd: `message` events; baseline: rows) received. */
  messages: number;
  /** chatd: the event types of the last frame, in order. */
  lastEvents?: string[];
}

/** Opens a socket, records every frame's arrival until `isEnd`, then closes it and parses what came. */
function timeBootstrap(
  url: string,
  isEnd: (frame: Buffer) => boolean,
  timeoutMs: number,
): Promise<{ timing: Bootstrap; frames: Buffer[] }> {
  return new Promise((resolve, reject) => {
    const frames: Buffer[] = [];
    let openMs = Number.NaN;
    let firstFrameMs = Number.NaN;
    let bytes = 0;
    const started = performance.now();
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`no end of the bootstrap within ${timeoutMs} ms (${frames.length} frames)`));
    }, timeoutMs);
    ws.once("open", () => {
      openMs = performance.now() - started;
    });
    ws.on("message", (data: Buffer) => {
      const at = performance.now() - started;
      if (frames.length === 0) firstFrameMs = at;
      frames.push(data);
      bytes += data.length;
      if (!isEnd(data)) return;
      clearTimeout(timer);
      ws.close();
      resolve({ timing: { openMs, firstFrameMs, endMs: at, frames: frames.length, bytes, messages: 0 }, frames });
    });
    ws.once("unexpected-response", (_req, res) => {
      clearTimeout(timer);
      reject(new Error(`upgrade answered ${res.statusCode}`));
    });
    ws.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    ws.once("close", (code) => {
      clearTimeout(timer);
      reject(new Error(`closed (${code}) before the bootstrap ended (${frames.length} frames)`));
    });
  });
}

async function chatdBootstrap(url: string, timeoutMs: number, expected: number): Promise<Bootstrap> {
  const { timing, frames } = await timeBootstrap(url, (f) => f.includes('"type":"status"'), timeoutMs);
  let messages = 0;
  let lastEvents: string[] = [];
  for (const frame of frames) {
    const events = JSON.parse(frame.toString()) as { type: string }[];
    messages += events.filter((e) => e.type === "message").length;
    lastEvents = events.map((e) => e.type);
  }
  if (messages !== expected) throw new Error(`chatd's bootstrap carried ${messages} messages, expected ${expected}`);
  return { ...timing, messages, lastEvents: lastEvents.slice(-3) };
}

async function baselineBootstrap(url: string, timeoutMs: number, expected: number): Promise<Bootstrap> {
  const { timing, frames } = await timeBootstrap(url, (f) => f.includes('"done":true') || f.includes('"error"'), timeoutMs);
  let rows = 0;
  for (const frame of frames.slice(0, -1)) rows += (JSON.parse(frame.toString()) as unknown[]).length;
  const end = JSON.parse(frames.at(-1)?.toString() ?? "{}") as { rows?: number; error?: string };
  if (end.error || rows !== expected || end.rows !== expected) throw new Error(`the baseline sent ${rows} rows: ${JSON.stringify(end)}`);
  return { ...timing, messages: rows };
}

/** Node floor: the same SELECT on a direct node-postgres connection (no proxy, no workerd) + JSON.stringify. */
async function nodeSelect(client: pg.Client, chatId: string): Promise<{ selectMs: number; encodeMs: number; bytes: number }> {
  const started = performance.now();
  const { rows } = await client.query("SELECT * FROM chat_messages WHERE chat_id = $1 AND NOT model_only AND revision > 0 ORDER BY id", [
    chatId,
  ]);
  const selected = performance.now();
  const json = JSON.stringify(rows);
  return { selectMs: selected - started, encodeMs: performance.now() - selected, bytes: Buffer.byteLength(json) };
}

interface Rep {
  rep: number;
  order: string;
  chatd: Bootstrap;
  baseline: Bootstrap;
  node: { selectMs: number; encodeMs: number; bytes: number };
  getChatMs: number;
}

async function main(session: Session, opts: Options): Promise<number> {
  const env = session.environment();
  log("info", "bench_start", { bench: "bootstrap", ...opts, run_dir: session.dir, ...env });
  const { stack, seeded } = await session.startStack();
  const chatd = await session.startChatd(stack, { cli: opts.inspector });
  const baseline = await session.startWorker(
    "bootstrap-baseline",
    `${ROOT_DIR}scripts/bench/bootstrap/wrangler.toml`,
    { DATABASE_URL: stack.databaseUrl, NEON_WS_PROXY: stack.wsProxy, NEON_PIPELINE_CONNECT: stack.pipelineConnect },
    "/health",
  );
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  session.defer(() => client.end());

  const api = apiClient(chatd.directOrigin, seeded.token);
  const chat = await api<ChatWire>("POST", "/chats", { content: [] });
  const seed = await seedHistory(client, chat.id, seeded.user_id, opts.messages);
  log("info", "bench_history_seeded", { chat_id: chat.id, ...seed });

  const chatdUrl = streamUrl(chatd.directOrigin, chat.id, seeded.token);
  const baselineUrl = `${baseline.directOrigin.replace(/^http/, "ws")}/rows?chat=${chat.id}`;
  const pids = [chatd.workerPid, baseline.workerPid];
  const quiet = async () => {
    await settle(pids);
    await sleep(opts.gapMs);
  };

  const reps: Rep[] = [];
  for (let i = 0; i < opts.warmup + opts.reps && !session.interrupted; i++) {
    const warm = i < opts.warmup;
    const chatdFirst = i % 2 === 0;
    let chatdTiming: Bootstrap | undefined;
    let baselineTiming: Bootstrap | undefined;
    for (const side of chatdFirst ? ["chatd", "baseline"] : ["baseline", "chatd"]) {
      await quiet();
      if (side === "chatd") chatdTiming = await chatdBootstrap(chatdUrl, opts.timeoutMs, opts.messages);
      else baselineTiming = await baselineBootstrap(baselineUrl, opts.timeoutMs, opts.messages);
    }
    await quiet();
    const node = await nodeSelect(client, chat.id);
    const getStarted = performance.now();
    await api("GET", `/chats/${chat.id}`);
    const getChatMs = performance.now() - getStarted;
    chatd.checkAlive();
    baseline.checkAlive();
    const rep: Rep = {
      rep: i - opts.warmup,
      order: chatdFirst ? "chatd-first" : "baseline-first",
      chatd: chatdTiming!,
      baseline: baselineTiming!,
      node,
      getChatMs,
    };
    const r = (x: number) => Math.round(x * 10) / 10;
    log("info", warm ? "bench_warmup" : "bench_rep", {
      rep: rep.rep,
      order: rep.order,
      chatd_end_ms: r(rep.chatd.endMs),
      chatd_open_ms: r(rep.chatd.openMs),
      chatd_frames: rep.chatd.frames,
      baseline_end_ms: r(rep.baseline.endMs),
      baseline_open_ms: r(rep.baseline.openMs),
      node_select_ms: r(node.selectMs),
      get_chat_ms: r(getChatMs),
    });
    if (!warm) reps.push(rep);
  }
  if (session.interrupted) return 130;

  const figures = summarize(reps);
  const first = reps[0]!;
  const heading =
    `### Bootstrap (P4): ${opts.messages.toLocaleString("en")} messages (${(Number(seed.content_bytes) / 1e6).toFixed(1)} MB of content JSON), ` +
    `${reps.length} reps (+${opts.warmup} warm-up) per side, medians\n\n${machineLine(env, opts.worktree)}. chatd: ${chatd.mode}; ` +
    `baseline: ${baseline.mode}; both reached directly (not through wrangler's dev proxy). chatd's bootstrap: ${first.chatd.frames} frames, ` +
    `${(first.chatd.bytes / 1e6).toFixed(1)} MB, ending with ${first.chatd.lastEvents?.join(", ")}; the baseline's: ${first.baseline.frames} frames, ` +
    `${(first.baseline.bytes / 1e6).toFixed(1)} MB.`;
  process.stdout.write(`${heading}\n\n${markdown(figures)}\n`);
  if (opts.json) {
    writeFileSync(opts.json, `${JSON.stringify({ options: opts, environment: env, seed, figures, reps }, null, 2)}\n`);
    log("info", "bench_json_written", { file: opts.json });
  }
  return 0;
}

type Row = { label: string; chatd: number; baseline?: number; range?: [number, number] };

function summarize(reps: Rep[]): Row[] {
  const m = (f: (r: Rep) => number) => median(reps.map(f));
  return [
    {
      label: "**open → end of bootstrap** (chatd: the `status` event; baseline: `done`)",
      chatd: m((r) => r.chatd.endMs),
      baseline: m((r) => r.baseline.endMs),
      range: minMax(reps.map((r) => r.chatd.endMs / r.baseline.endMs)),
    },
    { label: "open → upgrade answered (101)", chatd: m((r) => r.chatd.openMs), baseline: m((r) => r.baseline.openMs) },
    { label: "open → first frame", chatd: m((r) => r.chatd.firstFrameMs), baseline: m((r) => r.baseline.firstFrameMs) },
    {
      label: "first frame → end",
      chatd: m((r) => r.chatd.endMs - r.chatd.firstFrameMs),
      baseline: m((r) => r.baseline.endMs - r.baseline.firstFrameMs),
    },
    { label: "information: Node, direct node-postgres: SELECT", chatd: m((r) => r.node.selectMs) },
    { label: "information: Node: JSON.stringify of those rows", chatd: m((r) => r.node.encodeMs) },
    { label: "information: chatd `GET /chats/{id}` round trip (auth + one read on a fresh connection)", chatd: m((r) => r.getChatMs) },
  ];
}

function markdown(rows: Row[]): string {
  const out = ["| figure (ms) | chatd | baseline | chatd ÷ baseline | per-rep ratio min–max |", "|---|---|---|---|---|"];
  for (const row of rows) {
    const r = row.baseline === undefined ? "" : ratio(row.chatd / row.baseline);
    const range = row.range ? `${ratio(row.range[0])}–${ratio(row.range[1])}` : "";
    out.push(`| ${row.label} | ${fixed(row.chatd)} | ${row.baseline === undefined ? "" : fixed(row.baseline)} | ${r} | ${range} |`);
  }
  return out.join("\n");
}

const options = parseOptions();
await runBench({ keep: options.keep, worktree: options.worktree }, (session) => main(session, options));
