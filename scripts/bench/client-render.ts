/**
 * Issue 13's render figure: the time from opening a 1,000-message chat in the web app to its last
 * message rendered, against rendering the same messages from a static JSON file in the same
 * Chromium (plain DOM, same markup), as a ratio. Starts its own stack and `wrangler dev` like the
 * other benches; the history is inserted in one statement (alternating user / assistant text).
 *
 *   npm run bench:render [-- --messages 1000 --reps 5]
 */
import { join } from "node:path";
import { chromium } from "playwright-core";
import pg from "pg";
import { ensureChromium } from "../lib/chromium";
import { log } from "../lib/log";
import { buildWebApp } from "../lib/web-build";
import { localWorkerVars } from "../lib/worker-vars";
import { startWranglerDev } from "../lib/wrangler-dev";
import { apiClient, type ChatWire } from "./common/api";
import { parseBenchArgs, wholeNumberOption } from "./common/parse-bench-args";
import { runBench } from "./common/session";
import { median } from "./common/stats";

const USAGE = `usage: npm run bench:render [-- options]
  --messages N   messages in the chat, alternating user and assistant (default 1000)
  --reps N       timed renders per side, after one warm-up each (default 5)
  --keep         keep the run folder`;

const { MESSAGES, REPS, KEEP } = parseBenchArgs(
  USAGE,
  {
    messages: { type: "string", default: "1000" },
    reps: { type: "string", default: "5" },
    keep: { type: "boolean", default: false },
  },
  (values) => ({
    MESSAGES: wholeNumberOption("messages", values.messages, 1, 100_000),
    REPS: wholeNumberOption("reps", values.reps, 1, 100),
    KEEP: values.keep,
  }),
);
const TIMEOUT_MS = 120_000;

/** The static page: fetches the JSON, renders the app's markup for each message, nothing else. */
const STATIC_PAGE = `<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="STYLES"></head>
<body><ol class="messages"></ol><script>
fetch("messages.json").then(r => r.json()).then(({ messages }) => {
  const list = document.querySelector(".messages");
  for (const m of messages) {
    const li = document.createElement("li");
    li.className = "message " + m.role;
    const role = document.createElement("div");
    role.className = "role";
    role.textContent = m.role;
    li.append(role);
    for (const p of m.content) if (p.type === "text") {
      const t = document.createElement("div");
      t.className = "text";
      t.textContent = p.text;
      li.append(t);
    }
    list.append(li);
  }
});
</script></body></html>`;

await runBench({ keep: KEEP, worktree: false }, async (session) => {
  await buildWebApp();
  const chromiumPath = ensureChromium();
  const { stack, seeded } = await session.startStack();
  const dev = await startWranglerDev({
    vars: localWorkerVars(stack),
    persistTo: join(session.dir, "wrangler"),
    logFile: join(session.dir, "wrangler.log"),
  });
  session.defer(dev.stop);
  const api = apiClient(dev.url, seeded.token);
  const chat = await api<ChatWire>("POST", "/chats", { content: [] });
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    await db.query("BEGIN");
    await db.query("UPDATE chats SET snapshot_version = snapshot_version + 1, updated_at = now() WHERE id = $1", [chat.id]);
    await db.query(
      `INSERT INTO chat_messages (chat_id, role, content, created_by)
       SELECT $1::uuid, CASE WHEN g % 2 = 1 THEN 'user' ELSE 'assistant' END,
              jsonb_build_array(jsonb_build_object('type', 'text', 'text', left(repeat(md5(g::text) || ' ', 30), CASE WHEN g % 2 = 1 THEN 200 ELSE 800 END))),
              CASE WHEN g % 2 = 1 THEN $2::uuid END
       FROM generate_series(1, $3::int) AS g ORDER BY g`,
      [chat.id, seeded.user_id, MESSAGES],
    );
    await db.query("COMMIT");
  } finally {
    await db.end();
  }
  const history = await api<{ messages: unknown[] }>("GET", `/chats/${chat.id}/messages`);
  if (history.messages.length !== MESSAGES) throw new Error(`seeded ${history.messages.length} messages, wanted ${MESSAGES}`);
  const json = JSON.stringify(history);

  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  session.defer(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  await context.addCookies([{ name: "coder_session_token", value: seeded.token, url: dev.url }]);
  const appCss = await (await fetch(`${dev.url}/`)).text().then((html) => /href="([^"]+\.css)"/.exec(html)?.[1] ?? "");
  await context.route(`${dev.url}/static-bench/**`, (route) => {
    const url = new URL(route.request().url());
    if (url.pathname.endsWith("messages.json")) return route.fulfill({ contentType: "application/json", body: json });
    return route.fulfill({ contentType: "text/html", body: STATIC_PAGE.replace("STYLES", appCss) });
  });

  const rendered = async (url: string): Promise<number> => {
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(url);
    // A locator, not waitForFunction: that evals its predicate in the page, which the app's CSP
    // (no 'unsafe-eval') refuses.
    await page
      .locator(".messages > li.message")
      .nth(MESSAGES - 1)
      .waitFor({ state: "attached", timeout: TIMEOUT_MS });
    const ms = performance.now() - started;
    await page.close();
    return ms;
  };
  const app: number[] = [];
  const plain: number[] = [];
  // A warm-up each (browser and HTTP caches, workerd's isolate), then alternate the order.
  await rendered(`${dev.url}/chats/${chat.id}`);
  await rendered(`${dev.url}/static-bench/index.html`);
  for (let rep = 0; rep < REPS && !session.interrupted; rep++) {
    for (const side of rep % 2 === 0 ? ["app", "static"] : ["static", "app"]) {
      if (side === "app") app.push(await rendered(`${dev.url}/chats/${chat.id}`));
      else plain.push(await rendered(`${dev.url}/static-bench/index.html`));
    }
    log("info", "bench_rep", { rep, app_ms: Math.round(app.at(-1)!), static_ms: Math.round(plain.at(-1)!) });
  }
  const [a, s] = [median(app), median(plain)];
  process.stdout.write(
    [
      "| figure | value |",
      "|---|---|",
      `| web app: open a ${MESSAGES}-message chat to its last message rendered (median of ${REPS}) | ${a.toFixed(0)} ms |`,
      `| the same messages from a static JSON file, plain DOM (median of ${REPS}) | ${s.toFixed(0)} ms |`,
      `| app / static | ${(a / s).toFixed(2)} |`,
      "",
    ].join("\n"),
  );
  return 0;
});
