/**
 * The hostile-tenant suite (docs/fairness.md, docs/hardening.md; R7 of docs/reliability.md): one
 * deployment with fair use on, two organizations, a member of each; the attacker is their
 * organization's admin. The attacker saturates what they can (their share of the pool, the write
 * rate, sockets, chats, upload bytes, MCP servers at internal addresses, active files); each time
 * the service refuses or bounds it with a machine-readable answer, and the victim's chat is
 * answered and their data unchanged (whole tables compared, not only the attacker's rows).
 *
 * In `npm test`: the fixed cases and TENANTS_ROUNDS (1) seeded round. `npm run
 * reliability:tenants` runs many rounds from a printed seed (TENANTS_SEED).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import type { WranglerDev } from "../../scripts/lib/wrangler-dev";
import { createApiKey, TOKEN_LOGIN_TYPE } from "../../src/accounts/api-keys";
import { addMember } from "../../src/accounts/organizations";
import { createUser } from "../../src/accounts/users";
import { organizations } from "../../src/db/schema/auth";
import { seededRandom } from "../../src/seeded-random";
import { newGate, openGate } from "../support/fake-model-gate";
import { type Deployment, deployment, words } from "./support/deployment";

/** Fair use as a shared deployment runs it, with quotas small enough to reach in a test. */
const FAIR_USE = {
  CHAT_ROOT_CONCURRENCY: "5",
  CHAT_ROOT_CONCURRENCY_PER_USER: "2",
  CHAT_ROOT_CONCURRENCY_PER_ORGANIZATION: "3",
  CHAT_RATE_LIMITS_ENABLED: "true",
  CHAT_MAX_CHATS_PER_USER: "6",
  CHAT_MAX_SOCKETS_PER_CHAT: "4",
  CHAT_MAX_SOCKETS_PER_USER_PER_CHAT: "3",
  CHAT_MAX_UPLOAD_BYTES_PER_USER: "4000",
};

const ROUNDS = Number(process.env.TENANTS_ROUNDS ?? "1");
const SEED = Number(process.env.TENANTS_SEED ?? "20261203");

let d: Deployment;
let dev: WranglerDev;
/** The deployment's own member: the attacker. */
let attacker: { token: string; organizationId: string };
/** A member of another organization. */
let victim: { token: string; organizationId: string };

beforeAll(async () => {
  // Names resolve through the test resolver (no Internet here); nothing is allow-listed.
  d = await deployment("hostile-tenants", { ...FAIR_USE, CHAT_OUTBOUND_DNS_URL: inject("dohUrl"), CHAT_OUTBOUND_ALLOW: "" });
  dev = await d.start();
  const [org] = await d.own.pool.query<{ id: string }>("SELECT id FROM organizations").then((r) => r.rows);
  attacker = { token: d.token, organizationId: org!.id };
  // A hostile organization admin: they may register MCP servers.
  await d.own.pool.query("UPDATE organization_members SET role = 'admin' WHERE organization_id = $1", [org!.id]);
  victim = await memberOfNewOrganization("victim");
}, 120_000);
afterAll(() => d?.close());

async function memberOfNewOrganization(name: string): Promise<{ token: string; organizationId: string }> {
  const [org] = await d.own.db
    .insert(organizations)
    .values({ name: `${name}-org` })
    .returning();
  const user = await createUser(d.own.db, {
    email: `${name}@example.com`,
    username: name,
    siteRoles: [],
    organizationId: org!.id,
    role: "member",
  });
  await addMember(d.own.db, org!.id, user.id, "member").catch(() => {});
  const { token } = await createApiKey(d.own.db, {
    userId: user.id,
    tokenName: "t",
    loginType: TOKEN_LOGIN_TYPE,
    expiresAt: new Date(Date.now() + 3_600_000),
  });
  // The model config is the organization's: the victim's needs one of its own.
  await d.own.pool.query(
    `INSERT INTO chat_model_configs (organization_id, provider_id, model, is_default)
     SELECT $1, provider_id, model, true FROM chat_model_configs LIMIT 1`,
    [org!.id],
  );
  return { token, organizationId: org!.id };
}

function api(token: string, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  return fetch(`${dev.url}/api/v2${path}`, {
    method: init.method ?? "GET",
    headers: {
      authorization: `Bearer ${token}`,
      ...(init.body === undefined || init.body instanceof Uint8Array ? {} : { "content-type": "application/json" }),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: init.body instanceof Uint8Array ? init.body : JSON.stringify(init.body) }),
  });
}

async function createChat(token: string, text: string): Promise<string> {
  const res = await api(token, "/chats", { method: "POST", body: { content: [{ type: "text", text }] } });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** Every row of the tables a tenant's requests could touch, for a before/after comparison. */
async function tables(): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of ["chats", "chat_messages", "chat_queued_messages", "chat_files", "organizations", "organization_members"]) {
    out[table] = (await d.own.pool.query(`SELECT * FROM ${table} ORDER BY 1`)).rows;
  }
  return out;
}

/** Opens a stream socket; the upgrade's refusal answers its status and body. */
function openSocket(token: string, chatId: string): Promise<{ ws: WebSocket } | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${dev.url.replace(/^http/, "ws")}/api/v2/chats/${chatId}/stream`, {
      headers: { authorization: `Bearer ${token}` },
    });
    ws.once("open", () => resolve({ ws }));
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once("error", reject);
  });
}

/** What `read` answers once the chats' own work (turns, titles) has stopped changing it. */
async function settled<T>(read: () => Promise<T>): Promise<T> {
  let last = await read();
  for (let i = 0; i < 60; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await read();
    if (JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
  throw new Error("the rows did not settle in 30 s");
}

const statusOf = async (id: string) =>
  (await d.own.pool.query<{ status: string; worker_id: string | null }>("SELECT status, worker_id FROM chats WHERE id = $1", [id])).rows[0];

describe("a hostile member against another tenant", () => {
  it("holds no more than their share of the pool: the victim's first turn is answered while theirs wait", {
    timeout: 120_000,
  }, async () => {
    const gate = newGate("hostile-share");
    // Three long turns, each held by the fake model until the gate opens.
    const held: string[] = [];
    for (let i = 0; i < 3; i++) held.push(await createChat(attacker.token, `/gate ${gate} 5 ${words(5)} a${i}`));
    // Two owned (their share), the third runnable but unowned.
    await expect
      .poll(async () => (await Promise.all(held.map(statusOf))).filter((r) => r?.worker_id).length, { timeout: 30_000, interval: 100 })
      .toBe(2);
    const started = Date.now();
    const victimChat = await createChat(victim.token, "hello from the other tenant");
    await expect.poll(async () => (await statusOf(victimChat))?.status, { timeout: 30_000, interval: 100 }).toBe("waiting");
    const answeredMs = Date.now() - started;
    console.log(JSON.stringify({ event: "hostile_share", victim_answered_ms: answeredMs }));
    expect(answeredMs).toBeLessThan(20_000);
    const waitingOfTheirs = (await Promise.all(held.map(statusOf))).filter((r) => r?.status === "running" && r.worker_id === null);
    expect(waitingOfTheirs).toHaveLength(1);
    await openGate(gate);
    // The third turn runs once one of theirs ends: held back, not lost.
    await expect
      .poll(async () => (await Promise.all(held.map(statusOf))).every((r) => r?.status === "waiting"), { timeout: 60_000, interval: 200 })
      .toBe(true);
  });

  it("is rate limited per token (429 rate_limited, Retry-After) while the victim's writes go through", { timeout: 60_000 }, async () => {
    const chat = await createChat(attacker.token, "a chat to rename");
    const victimChat = await createChat(victim.token, "the victim's chat");
    // A token of its own for the burst: the limit is the token's, and the other tests go on with theirs.
    const burst = await freshAttackerToken();
    // 65 writes: whatever window they straddle, one holds more than the token's 30 per 10 s.
    const answers = await Promise.all(
      Array.from({ length: 65 }, (_, i) => api(burst, `/chats/${chat}`, { method: "PATCH", body: { title: `t${i}` } })),
    );
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    const body = (await limited[0]!.json()) as { code: string; message: string };
    expect(body.code).toBe("rate_limited");
    expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(answers.every((a) => a.status === 429 || a.status < 300)).toBe(true);
    const victimWrite = await api(victim.token, `/chats/${victimChat}`, { method: "PATCH", body: { title: "mine" } });
    expect(victimWrite.status).toBeLessThan(300);
  });

  it("opens at most their sockets on a chat (403 quota_exceeded), and the chat's limit holds for everyone", {
    timeout: 60_000,
  }, async () => {
    const chat = await createChat(attacker.token, "many sockets");
    const open: WebSocket[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const socket = await openSocket(attacker.token, chat);
        if (!("ws" in socket)) throw new Error(`socket ${i} refused: ${socket.status} ${socket.body}`);
        open.push(socket.ws);
      }
      const refused = await openSocket(attacker.token, chat);
      expect(refused).toMatchObject({ status: 403 });
      expect(JSON.parse((refused as { body: string }).body)).toMatchObject({ code: "quota_exceeded" });
      // A closed socket frees its place.
      open.pop()!.close();
      await expect
        .poll(
          async () => {
            const again = await openSocket(attacker.token, chat);
            if ("ws" in again) open.push(again.ws);
            return "ws" in again;
          },
          { timeout: 10_000, interval: 200 },
        )
        .toBe(true);
    } finally {
      for (const ws of open) ws.close();
    }
  });

  it("keeps at most their chats and upload bytes, writing nothing beyond, and the victim's tables do not change", {
    timeout: 60_000,
  }, async () => {
    const victimChat = await createChat(victim.token, "untouched");
    await expect.poll(async () => (await statusOf(victimChat))?.status, { timeout: 30_000, interval: 100 }).toBe("waiting");
    const mine = Number(
      (
        await d.own.pool.query("SELECT count(*) AS n FROM chats WHERE NOT archived AND parent_chat_id IS NULL AND organization_id = $1", [
          attacker.organizationId,
        ])
      ).rows[0].n,
    );
    for (let i = mine; i < 6; i++) await createChat(attacker.token, `filler ${i}`);
    const before = await settled(tables);
    const overChats = await api(attacker.token, "/chats", { method: "POST", body: { content: [{ type: "text", text: "one too many" }] } });
    expect(overChats.status).toBe(403);
    expect(await overChats.json()).toMatchObject({ code: "quota_exceeded" });

    const upload = (bytes: number) =>
      api(attacker.token, `/chats/files?organization=${attacker.organizationId}&name=f.txt`, {
        method: "POST",
        body: new Uint8Array(bytes).fill(97),
        headers: { "content-type": "text/plain" },
      });
    expect((await upload(3000)).status).toBe(201);
    const afterFirst = await tables();
    const overBytes = await upload(2000);
    expect(overBytes.status).toBe(403);
    expect(await overBytes.json()).toMatchObject({ code: "quota_exceeded" });
    // The refusals wrote nothing: every table as it was (the accepted upload aside).
    expect(await tables()).toEqual(afterFirst);
    expect({ ...afterFirst, chat_files: before.chat_files }).toEqual(before);
  });
});

describe("a hostile organization admin", () => {
  it("cannot make the service reach an internal address through an MCP server, in any spelling", { timeout: 60_000 }, async () => {
    const before = (await d.own.pool.query("SELECT * FROM mcp_servers ORDER BY id")).rows;
    for (const url of INTERNAL_URLS) {
      const res = await api(attacker.token, `/organizations/${attacker.organizationId}/mcp-servers`, {
        method: "POST",
        body: { name: `probe-${crypto.randomUUID().slice(0, 8)}`, url },
      });
      expect(res.status, url).toBe(400);
      expect(await res.json(), url).toMatchObject({ code: "url_not_allowed" });
    }
    expect((await d.own.pool.query("SELECT * FROM mcp_servers ORDER BY id")).rows).toEqual(before);
  });

  it("cannot serve an active page from the app's origin through an upload", { timeout: 30_000 }, async () => {
    const page = new TextEncoder().encode("<script>document.title = 'pwned'</script>");
    const uploaded = await api(attacker.token, `/chats/files?organization=${attacker.organizationId}&name=report.html`, {
      method: "POST",
      body: page,
      headers: { "content-type": "text/html" },
    });
    expect(uploaded.status).toBe(201);
    const { id } = (await uploaded.json()) as { id: string };
    const download = await api(attacker.token, `/chats/files/${id}`);
    expect(download.status).toBe(200);
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
    expect(download.headers.get("content-disposition")).toMatch(/^attachment/);
    expect(download.headers.get("content-security-policy")).toMatch(/sandbox/);
    await d.own.pool.query("DELETE FROM chat_files WHERE id = $1", [id]); // its bytes count against the quota below
  });
});

/** Internal addresses an attacker tries, in the spellings that once got through. */
const INTERNAL_URLS = [
  "http://169.254.169.254/latest/meta-data/",
  "http://127.0.0.1:8787/mcp",
  "http://localhost/mcp",
  "http://[::1]/mcp",
  "http://10.0.0.1/mcp",
  "http://2130706433/mcp",
  "http://0177.0.0.1/mcp",
  "http://[::ffff:127.0.0.1]/mcp",
  "https://loopback.test/mcp",
  "http://user:secret@mcp.example.com/mcp",
];

/**
 * Seeded rounds: each draws a few attacks and their sizes, runs them while the victim works, and
 * checks the bounds and the victim's answer. Figures per round go to the log (docs/reliability.md).
 */
describe.runIf(ROUNDS > 0)(`seeded rounds (TENANTS_SEED=${SEED}, TENANTS_ROUNDS=${ROUNDS})`, () => {
  it("bound every attack and leave the other tenant answered and untouched", { timeout: 120_000 + ROUNDS * 60_000 }, async () => {
    const random = seededRandom(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
    const victimAnswerMs: number[] = [];
    const counts = { rate_limited: 0, quota_exceeded: 0, url_not_allowed: 0, share_waits: 0 };
    for (let round = 1; round <= ROUNDS; round++) {
      // Room for the round: both tenants archive their idle chats (the chat quota counts them), and
      // the attacker's uploads are gone.
      await d.own.pool.query("UPDATE chats SET archived = true WHERE status = 'waiting' AND NOT archived");
      await d.own.pool.query("DELETE FROM chat_files WHERE organization_id = $1", [attacker.organizationId]);
      // Settled: the victim's last chat may still be getting its generated title.
      const victimBefore = await settled(victimRows);
      const gate = newGate(`round-${round}`);
      const attacks = [pick(ATTACKS), pick(ATTACKS)];
      // The attacker's long turns hold their share while everything else happens.
      const held: string[] = [];
      for (let i = between(2, 4); i > 0; i--) held.push(await createChatAllowingRefusal(attacker.token, `/gate ${gate} 5 ${words(3)}`));
      for (const attack of attacks) {
        const outcome = await attack(between, pick);
        for (const [code, n] of Object.entries(outcome)) counts[code as keyof typeof counts] += n;
      }
      const owned = (await Promise.all(held.filter(Boolean).map(statusOf))).filter((r) => r?.worker_id).length;
      expect(owned, "the attacker's turns owned at once").toBeLessThanOrEqual(2);
      counts.share_waits += held.filter(Boolean).length - owned;
      const started = Date.now();
      const victimChat = await createChat(victim.token, `round ${round}`);
      await expect.poll(async () => (await statusOf(victimChat))?.status, { timeout: 30_000, interval: 100 }).toBe("waiting");
      victimAnswerMs.push(Date.now() - started);
      await openGate(gate);
      // The victim's other rows are as they were: only their new chat was added.
      const victimAfter = await victimRows();
      expect(victimAfter.chats.filter((c) => c.id !== victimChat)).toEqual(victimBefore.chats);
      expect(victimAfter.messages.filter((m) => m.chat_id !== victimChat)).toEqual(victimBefore.messages);
      await expect
        .poll(async () => (await Promise.all(held.filter(Boolean).map(statusOf))).every((r) => r?.status !== "running"), {
          timeout: 60_000,
          interval: 200,
        })
        .toBe(true);
    }
    const sorted = [...victimAnswerMs].sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        event: "hostile_tenant_rounds",
        seed: SEED,
        rounds: ROUNDS,
        victim_answer_ms: { p50: sorted[Math.floor(sorted.length / 2)], max: sorted.at(-1), each: victimAnswerMs },
        ...counts,
      }),
    );
  });
});

type Outcome = Partial<Record<"rate_limited" | "quota_exceeded" | "url_not_allowed", number>>;
type Attack = (between: (lo: number, hi: number) => number, pick: <T>(items: readonly T[]) => T) => Promise<Outcome>;

const ATTACKS: readonly Attack[] = [
  // A write burst: no more succeed in a 10 s window than the token's limit.
  async (between) => {
    const chat = await createChatAllowingRefusal(attacker.token, "burst target");
    if (!chat) return { quota_exceeded: 1 };
    const token = await freshAttackerToken();
    const n = between(35, 70);
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) => api(token, `/chats/${chat}`, { method: "PATCH", body: { title: `b${i}` } })),
    );
    const windows = Math.floor(Date.now() / 10_000) - Math.floor(started / 10_000) + 1;
    const ok = answers.filter((a) => a.status < 300).length;
    expect(ok).toBeLessThanOrEqual(30 * windows);
    expect(answers.every((a) => a.status < 300 || a.status === 429)).toBe(true);
    return { rate_limited: answers.length - ok };
  },
  // Sockets on one chat: never more open than the per-user quota.
  async (between) => {
    const chat = await createChatAllowingRefusal(attacker.token, "sockets target");
    if (!chat) return { quota_exceeded: 1 };
    const open: WebSocket[] = [];
    let refused = 0;
    try {
      for (let i = between(2, 6); i > 0; i--) {
        const socket = await openSocket(attacker.token, chat);
        if ("ws" in socket) open.push(socket.ws);
        else {
          expect(socket.status).toBe(403);
          refused++;
        }
      }
      expect(open.length).toBeLessThanOrEqual(3);
    } finally {
      for (const ws of open) ws.close();
    }
    return { quota_exceeded: refused };
  },
  // Uploads past the byte quota: refused, and what is stored stays within it.
  async (between) => {
    let refused = 0;
    for (let i = between(2, 5); i > 0; i--) {
      const res = await api(attacker.token, `/chats/files?organization=${attacker.organizationId}&name=f.bin`, {
        method: "POST",
        body: new Uint8Array(between(500, 2500)).fill(1),
        headers: { "content-type": "application/octet-stream" },
      });
      // Past the bytes (403) or, over a long run, the upload rate (429).
      if (res.status === 403 || res.status === 429) refused++;
      else expect(res.status).toBe(201);
    }
    const stored = Number(
      (
        await d.own.pool.query("SELECT coalesce(sum(size_bytes), 0) AS n FROM chat_files WHERE organization_id = $1", [
          attacker.organizationId,
        ])
      ).rows[0].n,
    );
    expect(stored).toBeLessThanOrEqual(4000);
    return { quota_exceeded: refused };
  },
  // An MCP server at an internal address, in a random spelling: refused.
  async (_between, pick) => {
    const url = pick(INTERNAL_URLS);
    const res = await api(attacker.token, `/organizations/${attacker.organizationId}/mcp-servers`, {
      method: "POST",
      body: { name: `probe-${crypto.randomUUID().slice(0, 8)}`, url },
    });
    // Over a long run the token's write limit may answer first; either way nothing is written.
    expect([400, 429], url).toContain(res.status);
    return res.status === 400 ? { url_not_allowed: 1 } : { rate_limited: 1 };
  },
];

/** A chat, or "" when the chat quota (403 quota_exceeded) or the user's write limit (429) refused it. */
async function createChatAllowingRefusal(token: string, text: string): Promise<string> {
  const res = await api(token, "/chats", { method: "POST", body: { content: [{ type: "text", text }] } });
  if (res.status === 403 || res.status === 429) {
    expect(await res.json()).toMatchObject({ code: res.status === 403 ? "quota_exceeded" : "rate_limited" });
    return "";
  }
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function freshAttackerToken(): Promise<string> {
  const [member] = (
    await d.own.pool.query<{ user_id: string }>("SELECT user_id FROM organization_members WHERE organization_id = $1", [
      attacker.organizationId,
    ])
  ).rows;
  const { token } = await createApiKey(d.own.db, {
    userId: member!.user_id,
    tokenName: `burst-${crypto.randomUUID().slice(0, 8)}`,
    loginType: TOKEN_LOGIN_TYPE,
    expiresAt: new Date(Date.now() + 3_600_000),
  });
  return token;
}

/** The victim organization's chats and messages. */
async function victimRows(): Promise<{ chats: { id: string }[]; messages: { chat_id: string }[] }> {
  const chats = (await d.own.pool.query("SELECT * FROM chats WHERE organization_id = $1 ORDER BY id", [victim.organizationId])).rows;
  const messages = (
    await d.own.pool.query("SELECT m.* FROM chat_messages m JOIN chats c ON c.id = m.chat_id WHERE c.organization_id = $1 ORDER BY m.id", [
      victim.organizationId,
    ])
  ).rows;
  return { chats, messages };
}
