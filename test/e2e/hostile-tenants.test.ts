/**
 * The hostile-tenant suite (docs/fairness.md, docs/reliability.md): one deployment with fair use
 * on, two organizations, a member of each. The attacker saturates what they can (their share of
 * the pool, the write rate, sockets, chats, upload bytes); each time the service refuses or bounds
 * it with a machine-readable answer, and the victim's chat is answered and their data unchanged
 * (whole tables compared, not only the attacker's rows).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { WranglerDev } from "../../scripts/lib/wrangler-dev";
import { createApiKey, TOKEN_LOGIN_TYPE } from "../../src/accounts/api-keys";
import { addMember } from "../../src/accounts/organizations";
import { createUser } from "../../src/accounts/users";
import { organizations } from "../../src/db/schema/auth";
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
  CHAT_MAX_SOCKETS_PER_USER: "3",
  CHAT_MAX_UPLOAD_BYTES_PER_USER: "4000",
};

let d: Deployment;
let dev: WranglerDev;
/** The deployment's own member: the attacker. */
let attacker: { token: string; organizationId: string };
/** A member of another organization. */
let victim: { token: string; organizationId: string };

beforeAll(async () => {
  d = await deployment("hostile-tenants", FAIR_USE);
  dev = await d.start();
  const [org] = await d.own.pool.query<{ id: string }>("SELECT id FROM organizations").then((r) => r.rows);
  attacker = { token: d.token, organizationId: org!.id };
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

/** The tables once the chats' own work (turns, titles) has stopped changing them. */
async function settledTables(): Promise<Record<string, unknown[]>> {
  let last = await tables();
  for (let i = 0; i < 60; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await tables();
    if (JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
  throw new Error("the tables did not settle in 30 s");
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
    const [user] = (
      await d.own.pool.query<{ user_id: string }>("SELECT user_id FROM organization_members WHERE organization_id = $1", [
        attacker.organizationId,
      ])
    ).rows;
    const { token: burst } = await createApiKey(d.own.db, {
      userId: user!.user_id,
      tokenName: "burst",
      loginType: TOKEN_LOGIN_TYPE,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
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
    const before = await settledTables();
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
