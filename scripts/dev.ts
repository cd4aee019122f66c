/**
 * `npm run dev`: the whole service on this machine, no account and no API key.
 * Postgres (embedded, or DATABASE_URL), migrations, the Neon WebSocket proxy, the fake model
 * server, a local OTLP receiver that prints every finished turn (unless OTEL_EXPORTER_OTLP_ENDPOINT
 * names a collector of your own) and `wrangler dev`. Ctrl-C stops all of it; the data in .data/ is
 * kept for next time.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { ConfigError } from "../src/config/env";
import { acquireDevLock, type DevLock, DevAlreadyRunningError } from "./lib/dev-lock";
import { devSecretsKeys } from "./lib/dev-secrets-keys";
import { log } from "./lib/log";
import { DATA_DIR, DEV_CREDENTIALS_FILE, DEV_DATA_DIR, DEV_DATABASE, DEV_LOCK_FILE } from "./lib/paths";
import { type SeedResult, seedDev } from "./lib/seed";
import { type Stack, startStack } from "./lib/stack";
import { startWranglerDev, type WranglerDev } from "./lib/wrangler-dev";
import { localWorkerVars } from "./lib/worker-vars";
import { type WebAppWatcher, watchWebApp } from "./lib/web-build";
import { type OtlpReceiver, startOtlpReceiver, turnLine } from "./lib/otlp-receiver";

const DEFAULT_PORT = 8787;
const DEFAULT_FAKE_MODEL_PORT = 8790;
const DEFAULT_OTLP_RECEIVER_PORT = 8791;

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ConfigError([`${name} must be a TCP port (1-65535), got "${raw}"`]);
  return port;
}

async function main(): Promise<void> {
  mkdirSync(DATA_DIR, { recursive: true });
  const port = portFromEnv("PORT", DEFAULT_PORT);
  const fakeModelPort = portFromEnv("FAKE_MODEL_PORT", DEFAULT_FAKE_MODEL_PORT);
  const receiverPort = portFromEnv("OTLP_RECEIVER_PORT", DEFAULT_OTLP_RECEIVER_PORT);
  let lock: DevLock;
  try {
    lock = acquireDevLock(DEV_LOCK_FILE);
  } catch (err) {
    if (!(err instanceof DevAlreadyRunningError)) throw err;
    log("error", "dev_already_running", { error: err.message, pid: err.pid, url: err.url ?? null });
    process.exit(1);
  }

  let stack: Stack | undefined;
  let worker: WranglerDev | undefined;
  let web: WebAppWatcher | undefined;
  let seeded: SeedResult | undefined;
  let receiver: OtlpReceiver | undefined;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log("info", "dev_stopping", { signal });
    await web?.close();
    await worker?.stop();
    await receiver?.close();
    await stack?.stop();
    lock.release();
    process.exit(0);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void shutdown(signal));

  try {
    stack = await startStack({ dataDir: DEV_DATA_DIR, database: DEV_DATABASE, databaseUrl: process.env.DATABASE_URL, fakeModelPort });
    // Turn spans go to a collector of your own when named, else to a receiver that prints them here.
    const traces: Record<string, string> = {};
    if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
      receiver = await startOtlpReceiver({
        port: receiverPort,
        onTurn: (turn, stages) => process.stdout.write(`${turnLine(turn, stages)}\n`),
      });
      traces.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    }
    // The keys credentials are sealed with: CHAT_SECRETS_KEYS, else one generated into .data/ once.
    const secrets = devSecretsKeys();
    const vars = localWorkerVars(stack, { ...traces, CHAT_SECRETS_KEYS: secrets.text });
    seeded = await seedDev({ databaseUrl: stack.databaseUrl, fakeModelUrl: stack.fakeModelUrl, keys: secrets.keys });
    // The web app is built before the Worker serves it, then rebuilt on every change under web/ or client/.
    web = await watchWebApp();
    worker = await startWranglerDev({ port, vars, persistTo: `${DATA_DIR}/wrangler`, logFile: `${DATA_DIR}/wrangler-dev.log`, echo: true });
  } catch (err) {
    const message = err instanceof ConfigError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
    log("error", "dev_failed", { error: message });
    await web?.close();
    await worker?.stop();
    await receiver?.close();
    await stack?.stop();
    lock.release();
    process.exit(1);
  }
  const baseUrl = `${worker.url}/api/v2`;
  lock.setUrl(baseUrl);
  // The seeded owner's credentials, for curl sessions, the bench and other local clients.
  writeFileSync(DEV_CREDENTIALS_FILE, `${JSON.stringify({ base_url: baseUrl, ...seeded }, null, 2)}\n`, { mode: 0o600 });
  log("info", "dev_ready", {
    base_url: baseUrl,
    fake_model_url: stack.fakeModelUrl,
    otlp_receiver_url: receiver?.url ?? null,
    credentials: DEV_CREDENTIALS_FILE,
  });
  process.stdout.write(
    `\nchatd-edge is running at ${baseUrl} (health: ${baseUrl}/health, API docs: ${baseUrl}/docs)\n` +
      `Web app: ${worker.url}/ (sign in as ${seeded?.email} with password ${seeded?.password}, or with the token)\n` +
      `Token of the seeded owner ${seeded?.email}: ${seeded?.token}\n` +
      `(also in ${DEV_CREDENTIALS_FILE}). Ctrl-C stops everything.\n`,
  );
}

await main();
