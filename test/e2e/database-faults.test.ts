/**
 * R6, database faults, done rather than assumed: while chats stream their answers, the runtime's
 * database connections are killed (pg_terminate_backend), then the database refuses new
 * connections for a few seconds, as during a restart or failover. Every request meanwhile is
 * answered, 2xx or a 503 `database_unavailable` with a `Retry-After` hint, never a 500; a write
 * answered 201 is there afterwards and one answered 503 wrote nothing; health is back within 10 s
 * of the database; every chat ends answered exactly once.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createChat, type Deployment, deployment, words } from "./support/deployment";
import { newGate, openGate } from "../support/fake-model-gate";

const CHATS = 10;
const OUTAGE_MS = 3_000;
/** Ends every other connection to the database $1: the runtime's and the test's own pool's. */
const KILL_OTHERS =
  "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()";
/** The bound: the service answers again within this long after the database is back. */
const RECOVERY_MS = 10_000;

let d: Deployment | undefined;
afterAll(async () => {
  await d?.close();
});

interface Answer {
  status: number;
  code?: string;
  retryAfter: string | null;
}

/** The runtime's last warnings and errors, for a failure's message. */
function runtimeTrouble(): string {
  const lines = (d?.logOf() ?? "").split("\n").filter((l) => /"level":"(warn|error)"|Uncaught|workerd/.test(l));
  return lines.slice(-30).join("\n");
}

describe("database faults", () => {
  it("answer 503 with a retry hint, never 500, recover within 10 s, and lose no message", { timeout: 240_000 }, async () => {
    await round().catch((err: Error) => {
      throw new Error(`${err.message}\nThe runtime's last warnings:\n${runtimeTrouble()}`, { cause: err });
    });
  });
});

async function round(): Promise<void> {
  d = await deployment("db-faults", { CHAT_ROOT_CONCURRENCY: String(CHATS) });
  const dev = await d.start();
  const database = new URL(d.own.url).pathname.slice(1);
  // The test's own connections are killed with the runtime's; the pool drops them and goes on.
  d.own.pool.on("error", () => {});
  const headers = { authorization: `Bearer ${d.token}` };

  // Every answer waits behind one gate of the fake model after its first token, so all the chats
  // are mid-stream together however slowly a loaded machine created them; the gate opens after the
  // first kill, and the rest of each answer (60 words, 100 ms apart) streams through the faults.
  const gate = newGate("db-faults");
  const expected = new Map<string, string>();
  for (let i = 0; i < CHATS; i++) {
    const answer = words(60, `c${i}w`);
    expected.set(await createChat(dev, d.token, `/gate ${gate} 100 ${answer}`), answer);
  }
  const ids = [...expected.keys()];
  const countChats = async (status: string): Promise<number> =>
    (await d!.own.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM chats WHERE status = $1 AND id = ANY($2)", [status, ids]))
      .rows[0]!.n;

  // Readers: every chat and the list, over and over, until the faults are over.
  const answers: Answer[] = [];
  let reading = true;
  const read = async (path: string): Promise<Answer> => {
    const res = await fetch(`${dev.url}/api/v2${path}`, { headers });
    const body = (await res.json().catch(() => ({}))) as { code?: string };
    const answer = { status: res.status, code: body.code, retryAfter: res.headers.get("retry-after") };
    answers.push(answer);
    return answer;
  };
  const readers = (async () => {
    while (reading) {
      await Promise.all([read("/chats"), ...ids.slice(0, 4).map((id) => read(`/chats/${id}`))]);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();

  // Writers: empty chats created with a title of their own, over and over, until the faults are
  // over. A 2xx must have written its chat; a 503 must have written nothing.
  const writes: { title: string; status: number }[] = [];
  const writers = (async () => {
    while (reading) {
      const title = `w-${randomUUID()}`;
      const res = await fetch(`${dev.url}/api/v2/chats`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ content: [], title }),
      });
      await res.body?.cancel();
      writes.push({ title, status: res.status });
      await new Promise((r) => setTimeout(r, 50));
    }
  })();

  let killed = 0;
  try {
    // Mid-stream: kill every connection the runtime holds, three times.
    await expect.poll(() => countChats("running"), { timeout: 60_000, interval: 100 }).toBe(CHATS);
    killed = 0;
    for (let i = 0; i < 3; i++) {
      killed += (await d.own.pool.query<{ n: number }>(KILL_OTHERS, [database])).rows[0]!.n;
      if (i === 0) await openGate(gate);
      await new Promise((r) => setTimeout(r, 700));
    }
    expect(killed).toBeGreaterThan(0);

    // The database unreachable for a few seconds: requests are 503 meanwhile.
    // From the server's maintenance database (a database cannot close itself to connections).
    const maintenance = new URL(d.own.url);
    maintenance.pathname = "/postgres";
    const admin = new pg.Client({ connectionString: maintenance.toString() });
    await admin.connect();
    const outageStarted = answers.length;
    try {
      await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
      killed += (await admin.query<{ n: number }>(KILL_OTHERS, [database])).rows[0]!.n;
      await new Promise((r) => setTimeout(r, OUTAGE_MS / 2));
      // Unauthenticated, so it says that the database is down and nothing of what the driver said.
      const health = await fetch(`${dev.url}/api/v2/health`);
      expect({ status: health.status, body: await health.json() }).toEqual({ status: 503, body: { ok: false, db: "unavailable" } });
      await new Promise((r) => setTimeout(r, OUTAGE_MS / 2));
    } finally {
      await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    const duringOutage = answers.slice(outageStarted);
    const back = Date.now();
    await expect.poll(async () => (await read("/health")).status, { timeout: RECOVERY_MS, interval: 200 }).toBe(200);
    const recoveredMs = Date.now() - back;
    const statuses: Record<string, number> = {};
    for (const a of answers) {
      const key = a.code ? `${a.status} ${a.code}` : String(a.status);
      statuses[key] = (statuses[key] ?? 0) + 1;
    }
    console.log(JSON.stringify({ event: "database_faults", killed, requests: answers.length, statuses, recovered_ms: recoveredMs }));

    expect(duringOutage.length).toBeGreaterThan(0);
    expect(duringOutage.filter((a) => a.status === 503).length).toBeGreaterThan(0);
  } finally {
    reading = false;
    await readers;
    await writers;
  }

  // Never a 500; every 503 is the retryable kind.
  expect(answers.filter((a) => a.status >= 500 && a.status !== 503)).toEqual([]);
  // Writes: each answered 201 left exactly its chat, each answered 503 left none, and the outage
  // saw both kinds.
  expect(writes.filter((w) => w.status !== 201 && w.status !== 503)).toEqual([]);
  const written = (await d.own.pool.query<{ title: string }>("SELECT title FROM chats WHERE title LIKE 'w-%'")).rows.map((r) => r.title);
  expect(written.sort()).toEqual(
    writes
      .filter((w) => w.status === 201)
      .map((w) => w.title)
      .sort(),
  );
  expect(writes.some((w) => w.status === 503)).toBe(true);
  const written201 = writes.filter((w) => w.status === 201).length;
  console.log(JSON.stringify({ event: "database_fault_writes", created: written201, refused: writes.length - written201 }));
  for (const a of answers.filter((x) => x.status === 503))
    expect(a).toEqual({ status: 503, code: "database_unavailable", retryAfter: "1" });

  // Every chat converges, answered exactly once with its own answer. A runner whose lease went
  // stale in the outage may have committed its answer before it was cleaned up: that chat waits
  // still owned by the stale lease, as the spec allows, until a worker takes it over.
  await expect.poll(() => countChats("waiting"), { timeout: 60_000, interval: 500 }).toBe(CHATS);
  const { rows } = await d.own.pool.query("SELECT chat_id, role, content FROM chat_messages WHERE NOT deleted ORDER BY chat_id, id");
  for (const [id, answer] of expected) {
    const history = (rows as { chat_id: string; role: string; content: { text?: string }[] }[]).filter((m) => m.chat_id === id);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(history[1]!.content.map((p) => p.text ?? "").join("")).toBe(answer);
  }
}
