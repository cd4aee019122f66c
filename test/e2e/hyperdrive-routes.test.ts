/**
 * The Worker's own routes over Hyperdrive (docs/deploy.md "Hyperdrive"): a `wrangler dev` with
 * WORKER_DB_DRIVER "hyperdrive", each of whose two bindings reaches the deployment's database
 * through a counting TCP proxy of its own (scripts/lib/pg-tcp-proxy.ts), and whose Neon driver has
 * a WebSocket proxy of its own. Sign-in, the caller, the chat list, providers and model configs,
 * reads and writes, must answer from the real Postgres through the Hyperdrive bindings and never
 * through the Neon driver; writes, authentication and the chat list never through the cached
 * binding, the provider and model config lists through it. Chats themselves are still created by
 * their objects over the Neon driver, and the list sees them at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPgTcpProxy, type PgTcpProxy } from "../../scripts/lib/pg-tcp-proxy";
import { startWsProxy, type WsProxy } from "../../scripts/lib/ws-proxy";
import type { WranglerDev } from "../../scripts/lib/wrangler-dev";
import { createApiKey, TOKEN_LOGIN_TYPE } from "../../src/accounts/api-keys";
import { createUser } from "../../src/accounts/users";
import { organizations } from "../../src/db/schema/auth";
import { createChat, type Deployment, deployment } from "./support/deployment";

const PASSWORD = "hyperdrive-test-password";

let deployed: Deployment;
let dev: WranglerDev;
let uncached: PgTcpProxy;
let cached: PgTcpProxy;
let ws: WsProxy;
let ownerToken: string;
let ownerEmail: string;
let organizationId: string;

beforeAll(async () => {
  deployed = await deployment("hyperdrive", { WORKER_DB_DRIVER: "hyperdrive", CHAT_WORKER_ENABLED: "false" });
  const db = new URL(deployed.own.url);
  uncached = await startPgTcpProxy({ target: { host: db.hostname, port: Number(db.port) } });
  cached = await startPgTcpProxy({ target: { host: db.hostname, port: Number(db.port) } });
  ws = await startWsProxy({ allow: [`${db.hostname}:${db.port}`, `localhost:${db.port}`] });
  const [org] = await deployed.own.db.select().from(organizations);
  organizationId = org!.id;
  ownerEmail = `owner-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const owner = await createUser(deployed.own.db, {
    email: ownerEmail,
    username: `owner${crypto.randomUUID().slice(0, 8)}`,
    password: PASSWORD,
    passwordIterations: 10_000,
    siteRoles: ["owner"],
    organizationId,
    role: "admin",
  });
  ownerToken = (
    await createApiKey(deployed.own.db, {
      userId: owner.id,
      tokenName: "t",
      loginType: TOKEN_LOGIN_TYPE,
      expiresAt: new Date(Date.now() + 3_600_000),
    })
  ).token;
  dev = await deployed.start({
    wsProxy: ws.hostPort,
    hyperdriveUrl: { HYPERDRIVE_UNCACHED: uncached.urlFor(deployed.own.url), HYPERDRIVE_CACHED: cached.urlFor(deployed.own.url) },
  });
}, 180_000);

afterAll(async () => {
  await deployed?.close();
  await uncached?.close();
  await cached?.close();
  await ws?.close();
});

async function call(path: string, token: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  return fetch(`${dev.url}/api/v2${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

interface Paths<T> {
  result: T;
  /** Round trips on the uncached binding, the cached one, and the Neon driver. */
  uncachedRoundTrips: number;
  cachedRoundTrips: number;
  neonRoundTrips: number;
}

/** Runs `request`, and says which path its database work took. */
async function paths<T>(request: () => Promise<T>): Promise<Paths<T>> {
  for (const proxy of [uncached, cached, ws]) proxy.resetCounters();
  const result = await request();
  return {
    result,
    uncachedRoundTrips: uncached.counters().roundTrips,
    cachedRoundTrips: cached.counters().roundTrips,
    neonRoundTrips: ws.counters().roundTrips,
  };
}

/** Fresh: everything on the uncached binding. */
function expectUncachedOnly(p: Paths<unknown>): void {
  expect(p.uncachedRoundTrips).toBeGreaterThan(0);
  expect(p.cachedRoundTrips).toBe(0);
  expect(p.neonRoundTrips).toBe(0);
}

/** A cached list: authentication and access on the uncached binding, the list on the cached one. */
function expectCachedList(p: Paths<unknown>): void {
  expect(p.uncachedRoundTrips).toBeGreaterThan(0);
  expect(p.cachedRoundTrips).toBeGreaterThan(0);
  expect(p.neonRoundTrips).toBe(0);
}

/** Waits until the chat objects' own work on the Neon driver (after a create) has gone quiet for a second. */
async function neonQuiet(): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    ws.resetCounters();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    if (ws.counters().roundTrips === 0) return;
    if (Date.now() > deadline) throw new Error("the Neon driver never went quiet");
  }
}

describe("the Worker's routes over Hyperdrive (WORKER_DB_DRIVER=hyperdrive)", () => {
  it("authenticates and answers GET /users/me through the Hyperdrive binding only", async () => {
    const me = await paths(() => call("/users/me", ownerToken));
    expect(me.result.status).toBe(200);
    expect(await me.result.json()).toMatchObject({ email: ownerEmail, roles: ["owner"] });
    expectUncachedOnly(me);
  });

  it("signs in with a password, and the new session authenticates at once", async () => {
    const login = await paths(() =>
      fetch(`${dev.url}/api/v2/users/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: ownerEmail, password: PASSWORD }),
      }),
    );
    expect(login.result.status).toBe(201);
    expectUncachedOnly(login);
    const session = ((await login.result.json()) as { session_token: string }).session_token;
    expect((await call("/users/me", session)).status).toBe(200);
    // Signed out, the same token is refused on the next request: authentication reads are never cached.
    expect((await call("/users/logout", session, { method: "POST" })).status).toBe(200);
    expect((await call("/users/me", session)).status).toBe(401);
  });

  it("writes and reads providers and model configs through the Hyperdrive bindings", async () => {
    const created = await paths(() =>
      call("/chats/providers", ownerToken, {
        body: { type: "openai-compatible", name: "second", base_url: "http://127.0.0.1:9/v1", api_key: "k" },
      }),
    );
    expect(created.result.status).toBe(201);
    expectUncachedOnly(created);
    const provider = (await created.result.json()) as { id: string };

    const listed = await paths(() => call("/chats/providers", ownerToken));
    expect(listed.result.status).toBe(200);
    expect(((await listed.result.json()) as { id: string; has_api_key: boolean }[]).find((p) => p.id === provider.id)).toMatchObject({
      has_api_key: true,
    });
    expectCachedList(listed);

    const config = await paths(() =>
      call(`/organizations/${organizationId}/chats/model-configs`, ownerToken, {
        body: { provider_id: provider.id, model: "second-model" },
      }),
    );
    expect(config.result.status).toBe(201);
    expectUncachedOnly(config);
    const configs = await paths(() => call(`/organizations/${organizationId}/chats/model-configs`, ownerToken));
    expect(configs.result.status).toBe(200);
    expect(((await configs.result.json()) as { model: string }[]).map((c) => c.model)).toEqual(
      expect.arrayContaining(["fake", "second-model"]),
    );
    expectCachedList(configs);
    const models = await paths(() => call(`/organizations/${organizationId}/chats/models`, ownerToken));
    expect(models.result.status).toBe(200);
    expectCachedList(models);
  });

  it("lists a chat its object just created (Neon driver) on the chat list (Hyperdrive)", async () => {
    const chatId = await createChat(dev, deployed.token, "hello over two drivers");
    await neonQuiet();
    const list = await paths(() => call("/chats", deployed.token));
    expect(list.result.status).toBe(200);
    expect(((await list.result.json()) as { id: string }[]).map((c) => c.id)).toContain(chatId);
    expectUncachedOnly(list);
  });

  it("refuses a bad request with the usual 4xx, writing nothing", async () => {
    const before = await deployed.own.pool.query("SELECT count(*)::int AS n FROM chat_providers");
    const res = await call("/chats/providers", ownerToken, { body: { type: "openai-compatible", name: "" } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "validation_failed" });
    const after = await deployed.own.pool.query("SELECT count(*)::int AS n FROM chat_providers");
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it("closes its connections after each request (a pool per request)", async () => {
    await call("/chats/providers", ownerToken);
    await expect.poll(() => uncached.openConnections() + cached.openConnections(), { timeout: 10_000 }).toBe(0);
  });
});
