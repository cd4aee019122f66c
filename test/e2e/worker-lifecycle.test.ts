/**
 * The chat worker across processes: admission against the deployment-wide limit, and takeover
 * after the runtime dies mid-generation. Each test runs its own `wrangler dev` on a database of its
 * own (so counts are exact), with test config only: 0.5 s heartbeats, a 3 s stale threshold, and
 * `/__scheduled` to fire the Cron Trigger's sweep on demand.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { startWranglerDev, type WranglerDev } from "../../scripts/lib/wrangler-dev";
import { createApiKey, TOKEN_LOGIN_TYPE } from "../../src/db/accounts/api-keys";
import { addMember } from "../../src/db/accounts/organizations";
import { createUser } from "../../src/db/accounts/users";
import { createModelConfig } from "../../src/db/model-configs/configs";
import { createProvider } from "../../src/db/model-configs/providers";
import { organizations } from "../../src/db/schema/auth";
import { createOwnDatabase, type OwnDatabase } from "../db/support/own-database";

const workdir = mkdtempSync(join(tmpdir(), "chatd-lifecycle-"));
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn().catch(() => {});
  rmSync(workdir, { recursive: true, force: true });
});

interface Deployment {
  own: OwnDatabase;
  token: string;
  start(): Promise<WranglerDev>;
}

async function deployment(prefix: string, vars: Record<string, string>): Promise<Deployment> {
  const own = await createOwnDatabase(prefix);
  cleanups.push(own.drop);
  const [org] = await own.db
    .insert(organizations)
    .values({ name: `${prefix}-org` })
    .returning();
  const user = await createUser(own.db, {
    email: `${prefix}@example.com`,
    username: prefix,
    siteRoles: [],
    organizationId: org!.id,
    role: "member",
  });
  await addMember(own.db, org!.id, user.id, "member").catch(() => {});
  const { token } = await createApiKey(own.db, {
    userId: user.id,
    tokenName: "t",
    loginType: TOKEN_LOGIN_TYPE,
    expiresAt: new Date(Date.now() + 3_600_000),
  });
  const provider = await createProvider(own.db, {
    type: "openai-compatible",
    name: "fake",
    baseUrl: `${inject("fakeModelUrl")}/v1`,
    apiKey: "x",
    enabled: true,
  });
  await createModelConfig(own.db, org!.id, { providerId: provider.id, model: "fake", isDefault: true }, new Date());
  const persistTo = join(workdir, prefix);
  return {
    own,
    token,
    start: async () => {
      const dev = await startWranglerDev({
        vars: {
          DATABASE_URL: own.url,
          NEON_WS_PROXY: inject("wsProxy"),
          CHAT_HEARTBEAT_INTERVAL_MS: "500",
          CHAT_STALE_THRESHOLD_MS: "3000",
          ...vars,
        },
        persistTo,
        logFile: join(workdir, `${prefix}.log`),
        testScheduled: true,
      });
      cleanups.push(dev.stop);
      return dev;
    },
  };
}

async function createChat(dev: WranglerDev, token: string, text: string): Promise<string> {
  const res = await fetch(`${dev.url}/api/v2/chats`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ content: [{ type: "text", text }] }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function rows(own: OwnDatabase): Promise<{ id: string; status: string; worker_id: string | null }[]> {
  return (await own.pool.query("SELECT id, status, worker_id FROM chats ORDER BY created_at")).rows;
}

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");

describe("the chat worker across processes", () => {
  it("admits five chats at a time; the sixth starts when a slot frees", { timeout: 180_000 }, async () => {
    const d = await deployment("admission", { CHAT_ROOT_CONCURRENCY: "5" });
    const dev = await d.start();
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push(await createChat(dev, d.token, `/slow 150 ${words(50)} c${i}`));
    let maxOwned = 0;
    let sawWaitingForSlot = false;
    await expect
      .poll(
        async () => {
          const now = await rows(d.own);
          const owned = now.filter((r) => r.worker_id !== null).length;
          maxOwned = Math.max(maxOwned, owned);
          if (now.some((r) => r.status === "running" && r.worker_id === null) && owned === 5) sawWaitingForSlot = true;
          return now.filter((r) => r.status === "waiting").length;
        },
        { timeout: 120_000, interval: 50 },
      )
      .toBe(6);
    expect(maxOwned).toBe(5);
    expect(sawWaitingForSlot).toBe(true);
  });

  it("takes over a chat whose runtime died mid-generation, losing and duplicating nothing", { timeout: 150_000 }, async () => {
    const d = await deployment("takeover", {});
    const first = await d.start();
    const text = words(60);
    const id = await createChat(first, d.token, `/slow 100 ${text}`);
    await expect.poll(async () => (await rows(d.own))[0]?.worker_id ?? null, { timeout: 20_000, interval: 50 }).not.toBeNull();
    await new Promise((r) => setTimeout(r, 800));
    // The runtime dies at once: no Abandon, no cleanup, the lease is left to go stale.
    process.kill(-first.pid, "SIGKILL");
    const before = (await d.own.pool.query("SELECT worker_id FROM chats WHERE id = $1", [id])).rows[0];
    expect(before.worker_id).not.toBeNull();

    const second = await d.start();
    await new Promise((r) => setTimeout(r, 3_500)); // past the stale threshold
    const swept = await fetch(`${second.url}/__scheduled?cron=*+*+*+*+*`);
    expect(swept.status).toBe(200);
    await expect.poll(async () => (await rows(d.own))[0]?.status, { timeout: 60_000, interval: 100 }).toBe("waiting");
    const msgs = (await d.own.pool.query("SELECT role, content FROM chat_messages WHERE chat_id = $1 AND NOT deleted ORDER BY seq", [id]))
      .rows as { role: string; content: { type: string; text?: string }[] }[];
    expect(msgs.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(msgs[1]!.content.map((p) => p.text ?? "").join("")).toBe(text);
    const owner = (await d.own.pool.query("SELECT worker_id FROM chats WHERE id = $1", [id])).rows[0];
    expect(owner.worker_id === null || owner.worker_id !== before.worker_id).toBe(true);
  });
});
