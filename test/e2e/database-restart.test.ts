/**
 * R6, the Postgres restart: a Postgres server of the test's own (never the shared one, which every
 * project uses at once), its own WebSocket proxy and a `wrangler dev` on it. While 50 chats stream
 * their answers and readers poll the chat list and four chats every 50 ms, the server is stopped
 * (a fast shutdown: every connection is ended) and, after 3 s down, started again on the same port
 * and data directory. Every request meanwhile is answered 2xx or 503 `database_unavailable` with
 * `Retry-After`, never 500; health is back within 10 s of the database; every chat ends answered
 * exactly once with its own answer: a turn cut by the restart continues or retries, never stalls.
 *
 * DB_RESTART_CHATS sizes it: 20 in `npm test`; `npm run reliability:db-restart` runs it with 50,
 * DB_RESTART_ROUNDS times.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runMigrations } from "../../scripts/lib/migrate";
import { type LocalPostgres, startLocalPostgres } from "../../scripts/lib/postgres";
import { startWsProxy, type WsProxy } from "../../scripts/lib/ws-proxy";
import { createChat, type Deployment, deployment, words } from "./support/deployment";
import { newGate, openGate } from "../support/fake-model-gate";

const CHATS = Number(process.env.DB_RESTART_CHATS ?? "20");
const DOWN_MS = 3_000;
/** The bound: the service answers again within this long after the database is back. */
const RECOVERY_MS = 10_000;
const DATABASE = "chatd_restart";
const REQUEST_TIMEOUT_MS = 15_000;
/** Per-token pace of the answers after the gate opens, in turn per chat. */
const PACES_MS = [20, 60, 120];

let server: LocalPostgres | undefined;
let proxy: WsProxy | undefined;
let d: Deployment | undefined;
/** The round's requests, and when its database went down and came back (ms since the round began). */
let answers: Answer[] = [];
const outage = { stoppedMs: 0, backMs: 0 };
const dataDir = mkdtempSync(join(tmpdir(), "chatd-pg-restart-"));
afterAll(async () => {
  await d?.close();
  await proxy?.close();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  code?: string;
  retryAfter: string | null;
  path?: string;
  /** When the request was sent and answered, in ms since the round started. */
  sentMs?: number;
  tookMs?: number;
}

/** The runtime's last warnings and errors, for a failure's message. */
function runtimeTrouble(): string {
  const lines = (d?.logOf() ?? "").split("\n").filter((l) => /"level":"(warn|error)"|Uncaught|workerd/.test(l));
  return lines.slice(-30).join("\n");
}

/** The requests in flight around the outage, one line each: when sent, how long, what came back. */
function outageTimeline(): string {
  const { stoppedMs, backMs } = outage;
  if (stoppedMs === 0) return "(the database was never stopped)";
  const around = answers.filter((a) => (a.sentMs ?? 0) + (a.tookMs ?? 0) >= stoppedMs - 500 && (a.sentMs ?? 0) <= backMs + 2_000);
  const line = (a: Answer) => `+${a.sentMs} ms ${a.path}: ${a.status} ${a.code ?? ""} after ${a.tookMs} ms`;
  return [`database stopped at +${stoppedMs} ms, back at +${backMs} ms`, ...around.slice(0, 60).map(line)].join("\n");
}

describe("database restart", () => {
  it(`Postgres restarted under ${CHATS} streaming chats: 503 with a retry hint, never 500, back within 10 s, nothing lost`, {
    timeout: 300_000,
  }, async () => {
    await round().catch((err: Error) => {
      throw new Error(
        `${err.message}\nThe requests around the outage:\n${outageTimeline()}\nThe runtime's last warnings:\n${runtimeTrouble()}`,
        {
          cause: err,
        },
      );
    });
  });
});

async function round(): Promise<void> {
  const roundStarted = Date.now();
  server = await startLocalPostgres({ dataDir: join(dataDir, "pg"), database: DATABASE });
  await runMigrations(server.url);
  const port = server.port;
  proxy = await startWsProxy({ allow: [`127.0.0.1:${port}`, `localhost:${port}`] });
  // wrangler.toml's heartbeat (9 s) and stale threshold (30 s), not the tests' 0.5 s and 3 s: each
  // object's tick takes the admission locks, and 50 objects ticking twice a second on this
  // shared 2-core machine time out their ticks and lose their leases before any fault
  // (docs/reliability.md, "R6: the Postgres restart").
  d = await deployment(
    "db-restart",
    { CHAT_ROOT_CONCURRENCY: String(CHATS), CHAT_HEARTBEAT_INTERVAL_MS: "9000", CHAT_STALE_THRESHOLD_MS: "30000" },
    { serverUrl: server.url },
  );
  // The test's own connections end with the server; the pool drops them and reconnects.
  d.own.pool.on("error", () => {});
  const dev = await d.start({ wsProxy: proxy.hostPort });
  const headers = { authorization: `Bearer ${d.token}` };

  // Every answer waits behind one gate of the fake model after its first token, so all 50 chats
  // are owned and mid-answer at the restart however long acquiring them takes on a loaded machine.
  // The gate opens as the server stops; the rest of each answer (60 words at 20, 60 or 120 ms)
  // ends during the outage, just after it, or well after it.
  const gate = newGate("db-restart");
  const expected = new Map<string, string>();
  for (let i = 0; i < CHATS; i += 10) {
    const batch = Array.from({ length: Math.min(10, CHATS - i) }, (_, k) => ({ n: i + k, answer: words(60, `c${i + k}w`) }));
    const ids = await Promise.all(
      batch.map(({ n, answer }) => createChat(dev, d!.token, `/gate ${gate} ${PACES_MS[n % PACES_MS.length]} ${answer}`)),
    );
    for (const [k, id] of ids.entries()) expected.set(id, batch[k]!.answer);
  }
  const ids = [...expected.keys()];
  const countChats = async (status: string): Promise<number> =>
    (await d!.own.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM chats WHERE status = $1", [status])).rows[0]!.n;

  // The Cron Trigger's sweep every 2 s (wrangler dev fires none by itself): with 9 s heartbeats, a
  // chat whose acquisition failed would otherwise wait for its object's next tick.
  let sweeping = true;
  const sweeper = (async () => {
    while (sweeping) {
      await fetch(`${dev.url}/__scheduled?cron=*+*+*+*+*`).catch(() => null);
      await new Promise((r) => setTimeout(r, 2_000));
    }
  })();

  answers = [];
  let reading = true;
  // A request the service never answers is recorded as status 0 after 15 s (and fails the round),
  // rather than hanging the readers and the test with them.
  const read = async (path: string): Promise<Answer> => {
    let answer: Answer;
    const sent = Date.now();
    try {
      const res = await fetch(`${dev.url}/api/v2${path}`, { headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      const body = (await res.json().catch(() => ({}))) as { code?: string };
      answer = { status: res.status, code: body.code, retryAfter: res.headers.get("retry-after") };
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof Error ? ` (${err.cause.message})` : "";
      answer = { status: 0, code: `no answer: ${err instanceof Error ? err.message : String(err)}${cause}`, retryAfter: null };
    }
    answer.path = path;
    answer.sentMs = sent - roundStarted;
    answer.tookMs = Date.now() - sent;
    answers.push(answer);
    return answer;
  };
  const readers = (async () => {
    while (reading) {
      await Promise.all([read("/chats"), ...ids.slice(0, 4).map((id) => read(`/chats/${id}`))]);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();

  let recoveredMs = 0;
  let ownedAtRestart = 0;
  let downMs = 0;
  try {
    // Every chat owned by a worker and streaming, none finished yet.
    const streaming = async () =>
      (await d!.own.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM chats WHERE status = 'running' AND worker_id IS NOT NULL"))
        .rows[0]!.n;
    await expect
      .poll(streaming, { timeout: 120_000, interval: 200, message: `all ${CHATS} chats owned and streaming` })
      .toBe(CHATS)
      .catch(async (err: Error) => {
        const { rows } = await d!.own.pool.query(
          "SELECT status, worker_id IS NOT NULL AS owned, retry_state IS NOT NULL AS retrying, count(*)::int AS n FROM chats GROUP BY 1, 2, 3",
        );
        throw new Error(`${err.message}; the chats: ${JSON.stringify(rows)}`);
      });
    ownedAtRestart = await streaming();

    const outageStarted = answers.length;
    const stopped = Date.now();
    outage.stoppedMs = stopped - roundStarted;
    await openGate(gate);
    await server.stop();
    await new Promise((r) => setTimeout(r, DOWN_MS));
    server = await startLocalPostgres({ dataDir: join(dataDir, "pg"), database: DATABASE, port });
    const back = Date.now();
    outage.backMs = back - roundStarted;
    downMs = back - stopped;
    const duringOutage = answers.slice(outageStarted);
    let health: Answer;
    do {
      health = await read("/health");
      if (health.status === 200) break;
      await new Promise((r) => setTimeout(r, 200));
    } while (Date.now() - back < RECOVERY_MS);
    expect(health, `/health within ${RECOVERY_MS} ms of the database's return (its last answer)`).toMatchObject({ status: 200 });
    // Back is when the first 200 was asked for, not when it arrived: on a loaded machine the answer
    // itself may take a second, and that second is the machine's, not the recovery's.
    recoveredMs = roundStarted + (health.sentMs ?? 0) - back;
    expect(recoveredMs, "ms from the database's return to a 200 from /health").toBeLessThanOrEqual(RECOVERY_MS);

    expect(duringOutage.length, "requests answered while the database was down").toBeGreaterThan(0);
    expect(duringOutage.filter((a) => a.status === 503).length, "503s while the database was down").toBeGreaterThan(0);
  } finally {
    reading = false;
    await readers;
  }
  try {
    await checkAnswers();
  } finally {
    sweeping = false;
    await sweeper;
  }

  async function checkAnswers(): Promise<void> {
    // Every request answered; never a 500; every 503 is the retryable kind.
    expect(answers.filter((a) => a.status === 0).slice(0, 5), "requests the service never answered").toEqual([]);
    expect(answers.filter((a) => a.status >= 500 && a.status !== 503)).toEqual([]);
    for (const a of answers.filter((x) => x.status === 503))
      expect(a).toMatchObject({ status: 503, code: "database_unavailable", retryAfter: "1" });

    // Every chat's turn continues or retries: each ends waiting with its own answer, once.
    const waiting = Date.now();
    await expect
      .poll(() => countChats("waiting"), { timeout: 90_000, interval: 500, message: `all ${CHATS} chats waiting again` })
      .toBe(CHATS);
    const settledMs = Date.now() - waiting;
    const { rows } = await d!.own.pool.query("SELECT chat_id, role, content FROM chat_messages WHERE NOT deleted ORDER BY chat_id, id");
    for (const [id, answer] of expected) {
      const history = (rows as { chat_id: string; role: string; content: { text?: string }[] }[]).filter((m) => m.chat_id === id);
      expect(
        history.map((m) => m.role),
        `chat ${id}'s history`,
      ).toEqual(["user", "assistant"]);
      expect(history[1]!.content.map((p) => p.text ?? "").join(""), `chat ${id}'s answer`).toBe(answer);
    }
    const statuses: Record<string, number> = {};
    for (const a of answers) {
      const key = a.code ? `${a.status} ${a.code}` : String(a.status);
      statuses[key] = (statuses[key] ?? 0) + 1;
    }
    console.log(
      JSON.stringify({
        event: "database_restart",
        chats: CHATS,
        down_ms: downMs,
        requests: answers.length,
        statuses,
        recovered_ms: recoveredMs,
        all_waiting_after_ms: settledMs,
        owned_at_restart: ownedAtRestart,
      }),
    );
  }
}
