import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/free-port";
import { commandOf, descendants, isAlive } from "../support/processes";

// The README's first command, run as a newcomer would: `npm run dev` from this checkout, with its
// data in a temporary folder so it never touches a developer's own .data/.
const dataDir = mkdtempSync(join(tmpdir(), "chatd-dev-test-"));
chmodSync(dataDir, 0o755); // the embedded Postgres runs as the postgres user when we are root
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface DevRun {
  child: ChildProcess;
  logs: string[];
  url: string;
}

async function startDev(): Promise<DevRun> {
  const port = await freePort();
  const fakeModelPort = await freePort();
  const receiverPort = await freePort();
  const { DATABASE_URL: _external, OTEL_EXPORTER_OTLP_ENDPOINT: _collector, ...env } = process.env;
  const child = spawn("npm", ["run", "dev"], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...env,
      CHATD_DATA_DIR: dataDir,
      PORT: String(port),
      FAKE_MODEL_PORT: String(fakeModelPort),
      OTLP_RECEIVER_PORT: String(receiverPort),
    },
  });
  const logs: string[] = [];
  child.stderr?.on("data", (chunk: Buffer) => logs.push(...chunk.toString().split("\n").filter(Boolean)));
  child.stdout?.on("data", (chunk: Buffer) => logs.push(...chunk.toString().split("\n").filter(Boolean)));
  return { child, logs, url: `http://127.0.0.1:${port}` };
}

/**
 * Ready means the command said so (`dev_ready`, logged after the credentials file is written):
 * wrangler may answer health a moment before the command has finished its own start.
 */
async function waitReady(run: DevRun, withinMs: number): Promise<unknown> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (run.logs.some((line) => line.includes('"dev_ready"'))) {
      const res = await fetch(`${run.url}/api/v2/health`, { signal: AbortSignal.timeout(5_000) });
      return await res.json();
    }
    if (run.child.exitCode !== null) throw new Error(`npm run dev exited ${run.child.exitCode}:\n${run.logs.slice(-20).join("\n")}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`not ready within ${withinMs} ms:\n${run.logs.slice(-20).join("\n")}`);
}

/**
 * startDev and waitReady, with fresh ports when the ones picked were taken before the command bound
 * them: they are free when picked, but the stack starts Postgres first, and in those seconds any
 * other process's connection may be given the same ephemeral port. Any other failure is the test's.
 */
async function startReady(withinMs: number): Promise<{ run: DevRun; health: unknown }> {
  for (let attempt = 1; ; attempt++) {
    const run = await startDev();
    try {
      return { run, health: await waitReady(run, withinMs) };
    } catch (err) {
      const portTaken = run.logs.some((line) => line.includes("Address already in use"));
      if (!portTaken || attempt === 3) throw err;
      console.log(JSON.stringify({ event: "dev_port_taken", attempt }));
    }
  }
}

async function stopWithCtrlC(run: DevRun): Promise<number[]> {
  const pid = run.child.pid as number;
  const tree = [pid, ...descendants(pid)];
  const exited = new Promise((resolve) => run.child.once("exit", resolve));
  process.kill(-pid, "SIGINT"); // what Ctrl-C does: the whole foreground process group
  await exited;
  const deadline = Date.now() + 15_000;
  while (tree.some(isAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return tree.filter(isAlive);
}

describe("npm run dev", () => {
  it("serves health with db ok (60 s idle; 120 s allowed under the whole suite), stops without leftovers, reuses its data", {
    timeout: 360_000,
  }, async () => {
    const { run: first, health } = await startReady(120_000);
    expect(health).toEqual({ ok: true, db: "ok" });
    const tree = [first.child.pid as number, ...descendants(first.child.pid as number)].map(commandOf);
    // The tree really holds every part of the stack.
    expect(tree.some((cmd) => cmd.includes("postgres"))).toBe(true);
    expect(tree.some((cmd) => cmd.includes("workerd"))).toBe(true);

    // The seeded owner's token works, and the README's curl session does what it says.
    const creds = JSON.parse(readFileSync(join(dataDir, "dev-credentials.json"), "utf8")) as { base_url: string; token: string };
    expect(creds.base_url).toBe(`${first.url}/api/v2`);
    const chatId = await readmeSession(creds.base_url, creds.token);
    // The dev receiver prints the turn the session ran, with where its time went: the stages it
    // has received when the turn's span arrives. A stage exported in a later batch is not listed
    // (the stream's was once missing under the whole suite), so the test asks for the step's.
    await expect
      .poll(() => first.logs.find((line) => line.startsWith(`turn ${chatId} completed in `)), { timeout: 30_000, interval: 250 })
      .toMatch(/: (\w+ \d+ ms, )*generation_step \d+ ms/);

    // A second `npm run dev` in the same checkout refuses to start and leaves the first one alone.
    const intruder = await startDev();
    const code = await new Promise<number | null>((resolve) => intruder.child.once("exit", resolve));
    expect(code).toBe(1);
    expect(intruder.logs.some((line) => line.includes('"dev_already_running"') && line.includes(first.url))).toBe(true);
    expect(await (await fetch(`${first.url}/api/v2/health`)).json()).toEqual({ ok: true, db: "ok" });

    const leftovers = await stopWithCtrlC(first);
    expect(leftovers.map((pid) => `${pid} ${commandOf(pid)}`)).toEqual([]);
    expect(first.logs.some((line) => line.includes('"postgres_initdb"'))).toBe(true);

    const { run: second, health: again } = await startReady(120_000);
    expect(again).toEqual({ ok: true, db: "ok" });
    expect(second.logs.some((line) => line.includes('"postgres_initdb"'))).toBe(false);
    expect(await stopWithCtrlC(second)).toEqual([]);
  });
});

/** The README's curl session: create a chat, send a message, read it back. */
async function readmeSession(base: string, token: string): Promise<string> {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const me = await fetch(`${base}/users/me`, { headers });
  expect(me.status).toBe(200);
  const created = await fetch(`${base}/chats`, { method: "POST", headers, body: JSON.stringify({ content: [] }) });
  expect(created.status).toBe(201);
  const chat = (await created.json()) as { id: string; status: string; title: string };
  expect(chat).toMatchObject({ status: "waiting", title: "New Chat" });
  const sent = await fetch(`${base}/chats/${chat.id}/messages`, {
    method: "POST",
    headers,
    body: JSON.stringify({ content: [{ type: "text", text: "hello" }] }),
  });
  expect(sent.status).toBe(200);
  const read = await fetch(`${base}/chats/${chat.id}/messages`, { headers });
  const body = (await read.json()) as { messages: { role: string; content: { type: string; text?: string }[] }[] };
  expect(body.messages.some((m) => m.role === "user" && m.content[0]?.text === "hello")).toBe(true);
  return chat.id;
}
