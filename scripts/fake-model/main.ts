// CLI: `tsx scripts/fake-model/main.ts [--port 8790] [--host 127.0.0.1] [--retry-after-ms 10|none]`.
// Prints one JSON line `{"event":"fake_model_listening","url":…}` once ready so
// a parent process can wait for it, and exits cleanly on SIGINT/SIGTERM.

import { parseArgs } from "node:util";

import { startFakeModel } from "./server";

const DEFAULT_PORT = 8790;
const EXIT_USAGE = 2;

function parsePort(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`invalid --port: ${value}`);
  return port;
}

function parseRetryAfter(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === "none") return null;
  const ms = Number(value);
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`invalid --retry-after-ms: ${value}`);
  return ms;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "retry-after-ms": { type: "string" },
    },
  });
  const server = await startFakeModel({
    port: parsePort(values.port),
    ...(values.host !== undefined ? { host: values.host } : {}),
    retryAfterMs: parseRetryAfter(values["retry-after-ms"]),
  });
  process.stdout.write(`${JSON.stringify({ event: "fake_model_listening", url: server.url, port: server.port })}\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    server.close().then(
      () => {
        process.stdout.write(`${JSON.stringify({ event: "fake_model_stopped", signal })}\n`);
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`${JSON.stringify({ event: "fake_model_stop_failed", error: String(error) })}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${JSON.stringify({ event: "fake_model_failed", error: String(error) })}\n`);
  process.exit(EXIT_USAGE);
});
