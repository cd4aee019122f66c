/**
 * globalSetup of the `client` project (the SDK and the web app against the real stack): a
 * database of its own, seeded like `npm run dev` (owner, organization, fake-model provider,
 * default model config, a token), and a `wrangler dev` with the chat worker on, so chats run
 * against the fake model. Own database: the worker's sweeps must not pick up other projects'
 * chats, which are left where their requests put them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { ensureChromium } from "../../scripts/lib/chromium";
import { buildWebApp } from "../../scripts/lib/web-build";
import { runMigrations } from "../../scripts/lib/migrate";
import { seedDev } from "../../scripts/lib/seed";
import { startWranglerDev } from "../../scripts/lib/wrangler-dev";
import { localWorkerVars } from "../../scripts/lib/worker-vars";
import { acquireStack, releaseStack } from "./shared-stack";
import { sharedWorkerBundle } from "./shared-worker-bundle";
import { FAIR_USE_OFF } from "./fair-use-off";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stack = await acquireStack();
  const cleanups: (() => Promise<void>)[] = [releaseStack];
  const teardown = async () => {
    for (const fn of cleanups.reverse()) await fn().catch(() => {});
  };
  try {
    // The Worker serves the app's build: a fresh clone has none until this runs.
    await buildWebApp();
    // Before anything else starts: a missing browser is a clear error, not a timeout.
    project.provide("chromiumPath", ensureChromium());
    const name = `client_${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
    await adminQuery(stack.databaseUrl, `CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    cleanups.push(() => adminQuery(stack.databaseUrl, `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`));
    const own = new URL(stack.databaseUrl);
    own.pathname = `/${name}`;
    await runMigrations(own.toString());
    const seeded = await seedDev({ databaseUrl: own.toString(), fakeModelUrl: stack.fakeModelUrl });
    const workdir = mkdtempSync(join(tmpdir(), "chatd-client-"));
    cleanups.push(async () => rmSync(workdir, { recursive: true, force: true }));
    const bundle = await sharedWorkerBundle();
    project.provide("workerBundle", bundle);
    const dev = await startWranglerDev({
      bundle,
      vars: localWorkerVars(
        { ...stack, databaseUrl: own.toString() },
        // Test config only: short timers so a retry plays out in seconds.
        {
          CHAT_WORKER_ENABLED: "true",
          CHAT_ROOT_CONCURRENCY: "0",
          ...FAIR_USE_OFF,
          CHAT_STREAM_SYNC_POLL_MS: "2000",
          CHAT_HEARTBEAT_INTERVAL_MS: "2000",
          CHAT_STALE_THRESHOLD_MS: "10000",
          // The web app's MCP settings test registers a server on the closed port 9 (docs/hardening.md).
          CHAT_OUTBOUND_ALLOW: "127.0.0.1:9",
        },
      ),
      persistTo: join(workdir, "wrangler"),
      snapshotAssets: true,
      logFile: join(workdir, "wrangler.log"),
    });
    cleanups.push(dev.stop);
    project.provide("clientBaseUrl", dev.url);
    project.provide("clientToken", seeded.token);
    project.provide("clientEmail", seeded.email);
    project.provide("clientPassword", seeded.password);
    project.provide("clientOrganizationId", seeded.organization_id);
    project.provide("clientDatabaseUrl", own.toString());
    return teardown;
  } catch (err) {
    await teardown();
    throw err;
  }
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
