/**
 * A compaction survives its runtime: `wrangler dev` is SIGKILLed while the summary call is in
 * flight (held by a gate in front of the fake model), a second runtime takes the chat over after
 * the lease goes stale, and the compaction completes exactly once. Own database and `wrangler dev`
 * with test config: 0.5 s heartbeats, 3 s stale threshold, `/__scheduled` for the sweep.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { startWranglerDev, type WranglerDev } from "../../scripts/lib/wrangler-dev";
import { createApiKey, TOKEN_LOGIN_TYPE } from "../../src/accounts/api-keys";
import { createUser } from "../../src/accounts/users";
import { createModelConfig } from "../../src/model-configs/configs";
import { createProvider } from "../../src/model-configs/providers";
import { setModelOverride } from "../../src/model-configs/model-overrides";
import { organizations } from "../../src/db/schema/auth";
import { createOwnDatabase } from "../db/support/own-database";
import { TEST_SECRETS_KEYS } from "../../scripts/lib/test-secrets-keys";
import { testKeys } from "../support/test-keys";

const workdir = mkdtempSync(join(tmpdir(), "chatd-compaction-"));
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn().catch(() => {});
  rmSync(workdir, { recursive: true, force: true });
});

/** A provider in front of the fake model that holds the first request until its client goes away. */
async function gate(upstream: string): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests += 1;
      if (requests === 1) return; // held: the runtime dies waiting for it
      const headers: Record<string, string> = { "content-type": "application/json" };
      fetch(`${upstream}${req.url}`, { method: "POST", headers, body: Buffer.concat(chunks) })
        .then(async (answer) => {
          res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
          res.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

describe("compaction across runtimes", () => {
  it("completes once after a takeover when the runtime dies mid-summary", { timeout: 180_000 }, async () => {
    const own = await createOwnDatabase("compaction");
    cleanups.push(own.drop);
    const [org] = await own.db.insert(organizations).values({ name: "compaction-org" }).returning();
    const user = await createUser(own.db, {
      email: "c@example.com",
      username: "compactor",
      siteRoles: [],
      organizationId: org!.id,
      role: "admin",
    });
    const { token } = await createApiKey(own.db, {
      userId: user.id,
      tokenName: "t",
      loginType: TOKEN_LOGIN_TYPE,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    const fakeUrl = inject("fakeModelUrl");
    const held = await gate(fakeUrl);
    const provider = (name: string, baseUrl: string) =>
      createProvider(own.db, { type: "openai-compatible", name, baseUrl: `${baseUrl}/v1`, apiKey: "x", enabled: true }, testKeys);
    const chatProvider = await provider("fake", fakeUrl);
    const gateProvider = await provider("gated", held.url);
    const config = (providerId: string, isDefault: boolean) =>
      createModelConfig(
        own.db,
        org!.id,
        { providerId, model: "fake-ctx8000", isDefault, contextLimit: 8000, compressionThreshold: 90 },
        new Date(),
      );
    await config(chatProvider.id, true);
    const summarizer = await config(gateProvider.id, false);
    await setModelOverride(own.db, org!.id, "compaction", summarizer.id);

    const start = async (): Promise<WranglerDev> => {
      const dev = await startWranglerDev({
        bundle: inject("workerBundle"),
        vars: {
          DATABASE_URL: own.url,
          NEON_WS_PROXY: inject("wsProxy"),
          CHAT_SECRETS_KEYS: TEST_SECRETS_KEYS,
          CHAT_HEARTBEAT_INTERVAL_MS: "500",
          CHAT_STALE_THRESHOLD_MS: "3000",
        },
        persistTo: join(workdir, "state"),
        snapshotAssets: true,
        logFile: join(workdir, "wrangler.log"),
        testScheduled: true,
      });
      cleanups.push(dev.stop);
      return dev;
    };
    const call = (dev: WranglerDev, path: string, body?: unknown) =>
      fetch(`${dev.url}/api/v2${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const chatRow = async (id: string) =>
      (await own.pool.query("SELECT status, worker_id, compaction_requested_at FROM chats WHERE id = $1", [id])).rows[0] as {
        status: string;
        worker_id: string | null;
        compaction_requested_at: Date | null;
      };

    const first = await start();
    const created = await call(first, "/chats", { content: [{ type: "text", text: "hello before the crash" }] });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    await expect.poll(async () => (await chatRow(id)).status, { timeout: 30_000, interval: 100 }).toBe("waiting");

    expect((await call(first, `/chats/${id}/compact`)).status).toBe(200);
    await expect.poll(held.requests, { timeout: 30_000, interval: 50 }).toBe(1);
    // The runtime dies with the summary in flight: no commit, no Abandon, the lease goes stale.
    process.kill(-first.pid, "SIGKILL");
    expect((await chatRow(id)).compaction_requested_at).not.toBeNull();

    const second = await start();
    // The Cron Trigger's sweep, until the lease has gone stale and it takes the chat over.
    const sweptUntilTaken = async () => {
      expect((await fetch(`${second.url}/__scheduled?cron=*+*+*+*+*`)).status).toBe(200);
      return (await chatRow(id)).compaction_requested_at;
    };
    await expect.poll(sweptUntilTaken, { timeout: 60_000, interval: 500 }).toBeNull();
    await expect.poll(async () => (await chatRow(id)).status, { timeout: 30_000, interval: 100 }).toBe("waiting");

    const rows = (
      await own.pool.query(
        "SELECT role, compressed, model_only, content FROM chat_messages WHERE chat_id = $1 AND NOT deleted ORDER BY id",
        [id],
      )
    ).rows as { role: string; compressed: boolean; model_only: boolean; content: { tool_name?: string; result?: { source?: string } }[] }[];
    expect(rows.map((r) => `${r.role}${r.compressed ? "/c" : ""}${r.model_only ? "/m" : ""}`)).toEqual([
      "user",
      "assistant",
      "user/c/m",
      "assistant/c",
      "tool/c",
    ]);
    expect(rows[4]!.content[0]).toMatchObject({ tool_name: "chat_summarized", result: { source: "manual" } });
    expect(held.requests()).toBe(2);
  });
});
