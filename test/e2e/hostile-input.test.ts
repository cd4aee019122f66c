/**
 * R4, hostile input: requests generated from a seed (test/support/hostile-requests.ts), each a
 * well-formed request with one thing broken beyond what any route accepts. Every answer must be
 * the one its kind of break calls for (status and error code, from the generator: a broken field
 * is 400 validation_failed, an oversized body 413, a wrong content type 415, bad credentials 401),
 * no table may change in any row (a deployment of its own, so the database holds nothing but this
 * test's rows), and the service must still serve afterwards. `npm test` runs 200 of seed 1;
 * `npm run reliability:hostile` runs 10,000 of a random seed (HOSTILE_COUNT / HOSTILE_SEED to choose).
 *
 * Over real HTTP against wrangler dev, not SELF.fetch: inside vitest-pool-workers thousands of
 * SELF.fetch calls from one test slow down step by step and end in a stack overflow in the test
 * harness (3,000 requests took 9 minutes), while the same requests against wrangler dev hold a
 * steady ~5 ms each.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WranglerDev } from "../../scripts/lib/wrangler-dev";
import { organizationMembers, users } from "../../src/db/schema/auth";
import { hostileRequest, type Target } from "../support/hostile-requests";
import { type Deployment, deployment } from "./support/deployment";

const COUNT = Number(process.env.HOSTILE_COUNT ?? "200");
const SEED = Number(process.env.HOSTILE_SEED ?? "1");
const PREFIX = "hostile";

let d: Deployment;
let dev: WranglerDev;
let target: Target;
const base = () => `${dev.url}/api/v2`;

/**
 * Every row of every table, one text per table. The caller's key records its use after each
 * request (last_used_at), the one write a request may make; everything else must stay as it was.
 */
async function tables(): Promise<Record<string, string>> {
  const { rows } = await d.own.pool.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
  );
  const snapshot: Record<string, string> = {};
  for (const { name } of rows) {
    const row = name === "api_keys" ? "to_jsonb(t) - 'last_used_at'" : "to_jsonb(t)";
    const { rows: dump } = await d.own.pool.query<{ s: string }>(
      `SELECT coalesce(jsonb_agg(${row} ORDER BY ${row}::text), '[]')::text AS s FROM public.${JSON.stringify(name)} t`,
    );
    snapshot[name] = dump[0]!.s;
  }
  return snapshot;
}

async function expectJson<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected HTTP ${status}, got ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

beforeAll(async () => {
  // The API alone: nothing runs by itself between the two snapshots.
  d = await deployment(PREFIX, { CHAT_WORKER_ENABLED: "false", LOG_LEVEL: "warn" });
  dev = await d.start();
  const [user] = await d.own.db
    .select({ id: users.id, organizationId: organizationMembers.organizationId })
    .from(users)
    .innerJoin(organizationMembers, eq(organizationMembers.userId, users.id))
    .where(eq(users.username, PREFIX));
  const headers = { authorization: `Bearer ${d.token}`, "content-type": "application/json" };
  const chat = await expectJson<{ id: string }>(
    await fetch(`${base()}/chats`, {
      method: "POST",
      headers,
      body: JSON.stringify({ content: [{ type: "text", text: "hi" }], organization_id: user!.organizationId }),
    }),
    201,
  );
  const { messages } = await expectJson<{ messages: { id: number }[] }>(
    await fetch(`${base()}/chats/${chat.id}/messages`, { headers }),
    200,
  );
  target = { chatId: chat.id, messageId: messages[0]!.id, organizationId: user!.organizationId, userId: user!.id };
}, 120_000);
afterAll(() => d?.close());

/** The error body's machine-readable code ("" when the body is not one). */
function codeOf(text: string): string {
  try {
    return String((JSON.parse(text) as { code?: unknown }).code ?? "");
  } catch {
    return "";
  }
}

/** A progress line every this many requests (the long run takes minutes). */
const PROGRESS_EVERY = 1000;

describe(`hostile input (seed ${SEED}, ${COUNT} requests)`, () => {
  it("answers every request with the status and code its break calls for, writes nothing, and keeps serving", {
    timeout: Math.max(60_000, COUNT * 200),
  }, async () => {
    const before = await tables();
    // The snapshot holds the tables a request could write, the chat made above among their rows.
    expect(Object.keys(before)).toEqual(expect.arrayContaining(["chats", "chat_messages", "chat_files", "api_keys", "projects"]));
    expect(before.chat_messages).toContain(`"id": ${target.messageId},`);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    for (let i = 0; i < COUNT; i++) {
      const req = hostileRequest(SEED, i, target);
      const headers = { ...req.headers };
      if (headers["x-replace-auth"]) delete headers["x-replace-auth"];
      else headers.Authorization = `Bearer ${d.token}`;
      const res = await fetch(`${base()}${req.path}`, {
        method: req.method,
        headers,
        ...(req.body !== undefined && req.method !== "GET" ? { body: req.body } : {}),
      });
      const text = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const code = codeOf(text);
      if (!req.expected.some((e) => e.status === res.status && e.code === code))
        failures.push(
          `#${i} ${req.label} ${req.method} ${req.path.slice(0, 80)} -> ${res.status} ${text.slice(0, 160)}` +
            ` (expected ${req.expected.map((e) => `${e.status} ${e.code}`).join(" or ")})`,
        );
      if ((i + 1) % PROGRESS_EVERY === 0 && i + 1 < COUNT)
        console.log(JSON.stringify({ event: "hostile_input_progress", done: i + 1, of: COUNT, failures: failures.length }));
    }
    console.log(JSON.stringify({ event: "hostile_input", seed: SEED, count: COUNT, statuses: Object.fromEntries(statuses) }));
    expect(failures, `seed ${SEED}: replay one with hostileRequest(${SEED}, index, target)`).toEqual([]);
    const after = await tables();
    const changed = Object.keys({ ...before, ...after }).filter((name) => before[name] !== after[name]);
    expect(changed, "tables a hostile request changed").toEqual([]);
    expect(await expectJson(await fetch(`${base()}/health`), 200)).toMatchObject({ ok: true });
  });
});
