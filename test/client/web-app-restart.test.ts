/**
 * The web app across a server restart: a page watching a reply stream in keeps its place while the
 * server dies and comes back on the same address. The server here is a second `wrangler dev` of
 * its own (on the client project's database, so the seeded token works), killed outright
 * mid-answer: no cleanup, the lease left to go stale. The restarted server's Cron Trigger sweep
 * takes the chat over; the page reconnects by itself and shows the whole answer once, without a
 * reload.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort } from "../../scripts/lib/free-port";
import { startWranglerDev, type WranglerDev } from "../../scripts/lib/wrangler-dev";
import { localWorkerVars } from "../../scripts/lib/worker-vars";
import { sdk, textOf } from "./support";
import { newGate, openGate } from "../support/fake-model-gate";

const workdir = mkdtempSync(join(tmpdir(), "chatd-restart-"));
let browser: Browser;
let server: WranglerDev | null = null;

/** The same port and the same persisted Durable Object state each time: a restart, not a new server. */
let port = 0;
async function startServer(): Promise<WranglerDev> {
  server = await startWranglerDev({
    bundle: inject("workerBundle"),
    port,
    vars: localWorkerVars(
      { databaseUrl: inject("clientDatabaseUrl"), wsProxy: inject("wsProxy"), pipelineConnect: inject("pipelineConnect") },
      // Test config only: a lease goes stale in 3 s, so the takeover comes quickly.
      { CHAT_WORKER_ENABLED: "true", CHAT_HEARTBEAT_INTERVAL_MS: "500", CHAT_STALE_THRESHOLD_MS: "3000", CHAT_STREAM_SYNC_POLL_MS: "2000" },
    ),
    persistTo: join(workdir, "wrangler"),
    snapshotAssets: true,
    logFile: join(workdir, "wrangler.log"),
    testScheduled: true,
  });
  return server;
}

beforeAll(async () => {
  port = await freePort();
  browser = await chromium.launch({
    executablePath: inject("chromiumPath"),
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(workdir, { recursive: true, force: true });
});

describe("the web app across a server restart", () => {
  it("reconnects by itself and shows the answer the restarted server finishes", { timeout: 180_000 }, async () => {
    const first = await startServer();
    const words = Array.from({ length: 60 }, (_, i) => `k${i}`).join(" ");
    const client = sdk(first.url);
    const chat = await client.createChat({ body: { content: [] } });

    const context = await browser.newContext();
    await context.addCookies([{ name: "coder_session_token", value: inject("clientToken"), url: first.url }]);
    const page = await context.newPage();
    await page.goto(`${first.url}/chats/${chat.id}`);
    const composer = page.getByRole("textbox", { name: "Message" });
    await composer.waitFor({ timeout: 30_000 });
    // The answer holds after its first word until the gate opens, so the kill lands mid-answer.
    const gate = newGate("restart");
    await composer.fill(`/gate ${gate} 30 ${words}`);
    await composer.press("Enter");
    const streaming = page.locator(".message.streaming .text");
    await expect.poll(async () => ((await streaming.textContent({ timeout: 30_000 })) ?? "").trim(), { timeout: 30_000 }).toBe("k0");

    // The runtime dies at once, mid-answer; the restarted server's turn streams the whole answer.
    process.kill(-first.pid, "SIGKILL");
    server = null;
    await openGate(gate);
    const second = await startServer();
    expect(second.url).toBe(first.url);

    // The Cron Trigger's sweep, until the lease has gone stale and it takes the chat over: the
    // same page, never reloaded, ends with the whole answer, once.
    const committed = page.locator(".message.assistant:not(.streaming) .text");
    const sweptUntilAnswered = async () => {
      expect((await fetch(`${second.url}/__scheduled?cron=*+*+*+*+*`)).status).toBe(200);
      return (await committed.count()) > 0 ? committed.last().textContent() : null;
    };
    await expect.poll(sweptUntilAnswered, { timeout: 90_000, interval: 1_000 }).toBe(words);
    expect(await committed.count()).toBe(1);
    const { messages } = await client.listMessages({ chat: chat.id });
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(textOf(messages[1])).toBe(words);
    await context.close();
  });
});
