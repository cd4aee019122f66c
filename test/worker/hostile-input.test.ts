/**
 * R4, hostile input: requests generated from a seed (test/support/hostile-requests.ts), each a
 * well-formed request with one thing broken beyond what any route accepts. Every answer must be a
 * 4xx (no 5xx, and no 2xx: nothing broken may be accepted), the caller's rows must be unchanged,
 * and the service must still serve afterwards. `npm test` runs 400 of seed 1;
 * `npm run reliability:hostile` runs 10,000 of a random seed (HOSTILE_COUNT / HOSTILE_SEED to choose).
 */
import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { hostileRequest, type Target } from "../support/hostile-requests";
import { api, BASE, createTestUser, expectJson, type TestUser, withDb } from "./support/accounts";

const vars = env as unknown as { HOSTILE_COUNT: string; HOSTILE_SEED: string };
const COUNT = Number(vars.HOSTILE_COUNT);
const SEED = Number(vars.HOSTILE_SEED);

let user: TestUser;
let target: Target;

/** Every row the caller could have written, as one comparable text. */
async function rowsOf(u: TestUser): Promise<string> {
  return withDb(async (db) => {
    const { rows } = await db.$client.query(
      `SELECT jsonb_build_object(
         'chats', (SELECT coalesce(jsonb_agg(to_jsonb(c) ORDER BY c.id), '[]') FROM chats c WHERE c.owner_id = $1),
         'messages', (SELECT coalesce(jsonb_agg(to_jsonb(m) ORDER BY m.seq), '[]') FROM chat_messages m JOIN chats c ON c.id = m.chat_id WHERE c.owner_id = $1),
         'queue', (SELECT coalesce(jsonb_agg(to_jsonb(q) ORDER BY q.id), '[]') FROM chat_queued_messages q JOIN chats c ON c.id = q.chat_id WHERE c.owner_id = $1),
         'files', (SELECT coalesce(jsonb_agg(to_jsonb(f) ORDER BY f.id), '[]') FROM chat_files f WHERE f.owner_id = $1),
         'keys', (SELECT coalesce(jsonb_agg(to_jsonb(k) ORDER BY k.id) FILTER (WHERE k.token_name <> 'test'), '[]') FROM api_keys k WHERE k.user_id = $1),
         'projects', (SELECT coalesce(jsonb_agg(to_jsonb(p) ORDER BY p.id), '[]') FROM projects p WHERE p.owner_id = $1))::text AS s`,
      [u.id],
    );
    return rows[0].s as string;
  });
}

beforeAll(async () => {
  user = await createTestUser();
  const chat = await expectJson<{ id: string }>(
    await api("/chats", { token: user.token, body: { content: [{ type: "text", text: "hi" }] } }),
    201,
  );
  const { messages } = await expectJson<{ messages: { id: string }[] }>(
    await api(`/chats/${chat.id}/messages`, { token: user.token }),
    200,
  );
  target = { chatId: chat.id, messageId: messages[0]!.id, organizationId: user.organizationId, userId: user.id };
}, 30_000);

/** A progress line every this many requests (the long run takes minutes). */
const PROGRESS_EVERY = 1000;

describe(`hostile input (seed ${SEED}, ${COUNT} requests)`, () => {
  it("answers every request with a 4xx, writes nothing, and keeps serving", { timeout: Math.max(60_000, COUNT * 200) }, async () => {
    const before = await rowsOf(user);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    for (let i = 0; i < COUNT; i++) {
      const req = hostileRequest(SEED, i, target);
      const headers = { ...req.headers };
      if (headers["x-replace-auth"]) delete headers["x-replace-auth"];
      else headers.Authorization = `Bearer ${user.token}`;
      const res = await SELF.fetch(`${BASE}${req.path}`, {
        method: req.method,
        headers,
        ...(req.body !== undefined && req.method !== "GET" ? { body: req.body } : {}),
      });
      const text = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status < 400 || res.status >= 500)
        failures.push(`#${i} ${req.label} ${req.method} ${req.path.slice(0, 80)} -> ${res.status} ${text.slice(0, 160)}`);
      if ((i + 1) % PROGRESS_EVERY === 0 && i + 1 < COUNT)
        console.log(JSON.stringify({ event: "hostile_input_progress", done: i + 1, of: COUNT, failures: failures.length }));
    }
    console.log(JSON.stringify({ event: "hostile_input", seed: SEED, count: COUNT, statuses: Object.fromEntries(statuses) }));
    expect(failures, `seed ${SEED}: replay one with hostileRequest(${SEED}, index, target)`).toEqual([]);
    expect(await rowsOf(user)).toBe(before);
    expect(await expectJson(await api("/health"), 200)).toMatchObject({ ok: true });
  });
});
