/**
 * Client figures (issue 13): the gzip size of the web app's bundle and of the SDK alone, and the
 * SDK stream's CPU per 10,000 `message_part` events in Node (socket, parse, fold into ChatState)
 * against a bare `ws` loop that only parses each frame. The parts come from a local server in
 * its own process (scripts/bench/client/part-server.ts), so only the client's CPU is measured.
 *
 *   npm run bench:client [-- --parts 10000 --reps 7 --per-frame 1]
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { gzipSync } from "node:zlib";
import { build, type Rollup } from "vite";
import WebSocket from "ws";
import { ChatdClient, type WebSocketLike } from "../../client/src/index";
import { buildWebApp } from "../lib/web-build";
import { ROOT_DIR } from "../lib/paths";
import { median } from "./common/stats";
import { parseBenchArgs, wholeNumberOption } from "./common/parse-bench-args";

const USAGE = `usage: npm run bench:client [-- options]
  --parts N       message_part events per stream (default 10000)
  --reps N        timed streams per side, after one warm-up each (default 7)
  --per-frame N   message_part events per WebSocket frame (default 1)`;

const { PARTS, REPS, PER_FRAME } = parseBenchArgs(
  USAGE,
  {
    parts: { type: "string", default: "10000" },
    reps: { type: "string", default: "7" },
    "per-frame": { type: "string", default: "1" },
  },
  (values) => ({
    PARTS: wholeNumberOption("parts", values.parts, 1, 10_000_000),
    REPS: wholeNumberOption("reps", values.reps, 1, 1000),
    PER_FRAME: wholeNumberOption("per-frame", values["per-frame"], 1, 10_000),
  }),
);

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

async function bundleSizes(): Promise<{ app: number; appRaw: number; sdk: number; sdkRaw: number }> {
  await buildWebApp();
  const dir = `${ROOT_DIR}dist/web/assets`;
  let app = 0;
  let appRaw = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".js") || f.endsWith(".css"))) {
    const bytes = readFileSync(`${dir}/${file}`);
    appRaw += bytes.length;
    app += gzipSync(bytes, { level: 9 }).length;
  }
  // The SDK as a consumer's bundler sees it: minified ES module, nothing external.
  const out = (await build({
    configFile: false,
    logLevel: "warn",
    build: { write: false, minify: true, lib: { entry: `${ROOT_DIR}client/src/index.ts`, formats: ["es"], fileName: "sdk" } },
  })) as Rollup.RollupOutput[];
  const code = out
    .flatMap((o) => o.output)
    .flatMap((c) => (c.type === "chunk" ? [c.code] : []))
    .join("");
  return { app, appRaw, sdk: gzipSync(code, { level: 9 }).length, sdkRaw: Buffer.byteLength(code) };
}

async function startServer(): Promise<{ port: number; stop(): void }> {
  const child = spawn(
    process.execPath,
    ["node_modules/tsx/dist/cli.mjs", "scripts/bench/client/part-server.ts", String(PARTS), String(PER_FRAME)],
    {
      cwd: ROOT_DIR,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve));
  return { port: Number(line), stop: () => child.kill() };
}

/** CPU (ms, user + system) of this process from connecting until the last part was handled. */
async function cpuOf(run: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

function bareLoop(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let parts = 0;
    ws.on("message", (data) => {
      for (const event of JSON.parse(String(data)) as { type: string }[]) if (event.type === "message_part") parts++;
      if (parts === PARTS) {
        ws.close();
        resolve();
      }
    });
    ws.on("error", reject);
  });
}

async function sdkStream(port: number): Promise<void> {
  const client = new ChatdClient({ baseUrl: `http://127.0.0.1:${port}`, token: "bench" });
  // The bench server ignores paths: the stream URL the SDK builds is accepted as is.
  const stream = client.stream("00000000-0000-4000-8000-000000000000", {
    webSocket: (url, headers) => new WebSocket(url, { headers }) as unknown as WebSocketLike,
  });
  await stream.until((s) => s.preview?.lastSeq === PARTS);
  stream.close();
}

const sizes = await bundleSizes();
const server = await startServer();
const url = `ws://127.0.0.1:${server.port}/`;
const bare: number[] = [];
const sdk: number[] = [];
try {
  // One warm-up each, then alternate which goes first.
  await bareLoop(url);
  await sdkStream(server.port);
  for (let rep = 0; rep < REPS; rep++) {
    const order = rep % 2 === 0 ? ["bare", "sdk"] : ["sdk", "bare"];
    for (const which of order) {
      if (which === "bare") bare.push(await cpuOf(() => bareLoop(url)));
      else sdk.push(await cpuOf(() => sdkStream(server.port)));
    }
  }
} finally {
  server.stop();
}
const per10k = (ms: number) => (ms * 10_000) / PARTS;
const [b, s] = [per10k(median(bare)), per10k(median(sdk))];
process.stdout.write(
  [
    "| figure | value |",
    "|---|---|",
    `| web app bundle (JS + CSS), gzip | ${kb(sizes.app)} (${kb(sizes.appRaw)} raw) |`,
    `| SDK alone (client/src/index.ts, minified), gzip | ${kb(sizes.sdk)} (${kb(sizes.sdkRaw)} raw) |`,
    `| bare \`ws\` loop, CPU per 10,000 parts (median of ${REPS}) | ${b.toFixed(1)} ms |`,
    `| SDK ChatStream, CPU per 10,000 parts (median of ${REPS}) | ${s.toFixed(1)} ms |`,
    `| SDK / bare | ${(s / b).toFixed(2)} |`,
    `| parts per frame | ${PER_FRAME} |`,
    "",
  ].join("\n"),
);
