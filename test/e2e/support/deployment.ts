/**
 * A deployment of its own for the tests that start and kill runtimes: a database of its own (so
 * counts are exact), one organization with a member, their token, and the fake model as the
 * default model; `start()` runs a `wrangler dev` on it with test config (0.5 s heartbeats, a 3 s
 * stale threshold, `/__scheduled` to fire the Cron Trigger's sweep on demand). Runtimes started
 * with the same `state` name share their Durable Object storage (a restart); different names are
 * different runtimes (two colos on one database).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, inject } from "vitest";
import type { HyperdriveLocal } from "../../../scripts/lib/hyperdrive-local";
import { startWranglerDev, type WranglerDev } from "../../../scripts/lib/wrangler-dev";
import { createApiKey, TOKEN_LOGIN_TYPE } from "../../../src/accounts/api-keys";
import { addMember } from "../../../src/accounts/organizations";
import { createUser } from "../../../src/accounts/users";
import { createModelConfig } from "../../../src/model-configs/configs";
import { createProvider } from "../../../src/model-configs/providers";
import { organizations } from "../../../src/db/schema/auth";
import { createOwnDatabase, type OwnDatabase } from "../../db/support/own-database";
import { FAIR_USE_OFF } from "../../support/fair-use-off";
import { TEST_SECRETS_KEYS } from "../../../scripts/lib/test-secrets-keys";
import { testKeys } from "../../support/test-keys";

/** Test config: leases renew every 0.5 s and go stale after 3 s. */
export const STALE_THRESHOLD_MS = 3_000;

export interface Deployment {
  own: OwnDatabase;
  token: string;
  /**
   * `wsProxy`: the runtime's way to the database (`host:port`), the stack's proxy by default.
   * `port`: listen there (a restart on the same address, so clients reconnect to it); a free one by default.
   * `bundle`: a Worker bundled from another entry than the run's shared one (R3's fault injector).
   * `hyperdriveUrl`: the database the [[hyperdrive]] bindings reach (counting proxies', one per binding or one for
   * both); the deployment's own by default.
   */
  start(opts?: { state?: string; wsProxy?: string; port?: number; bundle?: string; hyperdriveUrl?: HyperdriveLocal }): Promise<WranglerDev>;
  /** What the runtime started with this `state` logged so far (for a failure's message). */
  logOf(state?: string): string;
  /** Stops every runtime, drops the database, removes the folder. */
  close(): Promise<void>;
}

/** `serverUrl`: a Postgres server of the test's own to create the database on (the shared one by default). */
export async function deployment(prefix: string, vars: Record<string, string>, opts: { serverUrl?: string } = {}): Promise<Deployment> {
  const workdir = mkdtempSync(join(tmpdir(), `chatd-${prefix}-`));
  // CHATD_KEEP_DEPLOYMENTS=1 keeps the folder (the runtimes' logs) for a look after a failure.
  const cleanups: (() => Promise<void>)[] = [
    async () => {
      if (process.env.CHATD_KEEP_DEPLOYMENTS === "1") console.log(JSON.stringify({ event: "deployment_kept", workdir }));
      else rmSync(workdir, { recursive: true, force: true });
    },
  ];
  const own = await createOwnDatabase(prefix, opts.serverUrl);
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
  const provider = await createProvider(
    own.db,
    {
      type: "openai-compatible",
      name: "fake",
      baseUrl: `${inject("fakeModelUrl")}/v1`,
      apiKey: "x",
      enabled: true,
    },
    testKeys,
  );
  await createModelConfig(own.db, org!.id, { providerId: provider.id, model: "fake", isDefault: true }, new Date());
  return {
    own,
    token,
    start: async ({ state = "state", wsProxy = inject("wsProxy"), port, bundle = inject("workerBundle"), hyperdriveUrl } = {}) => {
      const dev = await startWranglerDev({
        bundle,
        ...(hyperdriveUrl === undefined ? {} : { hyperdriveUrl }),
        ...(port === undefined ? {} : { port }),
        vars: {
          DATABASE_URL: own.url,
          NEON_WS_PROXY: wsProxy,
          CHAT_SECRETS_KEYS: TEST_SECRETS_KEYS,
          CHAT_HEARTBEAT_INTERVAL_MS: "500",
          CHAT_STALE_THRESHOLD_MS: String(STALE_THRESHOLD_MS),
          ...FAIR_USE_OFF,
          ...vars,
        },
        persistTo: join(workdir, state),
        snapshotAssets: true,
        logFile: join(workdir, `${state}.log`),
        testScheduled: true,
      });
      cleanups.push(dev.stop);
      return dev;
    },
    logOf: (state = "state") => {
      try {
        return readFileSync(join(workdir, `${state}.log`), "utf8");
      } catch {
        return "";
      }
    },
    close: async () => {
      for (const fn of cleanups.reverse()) await fn().catch(() => {});
    },
  };
}

/** POST /chats with one text part; the new chat's id. */
export async function createChat(dev: WranglerDev, token: string, text: string): Promise<string> {
  const res = await fetch(`${dev.url}/api/v2/chats`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ content: [{ type: "text", text }] }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** Runs the Cron Trigger's sweep on `dev` now. */
export async function sweepNow(dev: WranglerDev): Promise<void> {
  const res = await fetch(`${dev.url}/__scheduled?cron=*+*+*+*+*`);
  expect(res.status).toBe(200);
}

export const words = (n: number, prefix = "w") => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(" ");
