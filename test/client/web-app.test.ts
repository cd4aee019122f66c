/**
 * The web app in a real Chromium (playwright-core driving Debian's chromium) against the client
 * project's `wrangler dev` (chat worker on, fake model): sign in, create a chat and watch a reply
 * stream in, queue two messages and promote one, interrupt, edit, answer a dynamic tool call,
 * clear and compact, reload mid-stream, two tabs on one chat. With CHATD_SCREENSHOTS=1 it also
 * writes the main views to docs/screenshots/.
 */
import { mkdirSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { text } from "../../client/src/index";
import { newGate, openGate } from "../support/fake-model-gate";
import { sdk } from "./support";

const SHOTS = process.env.CHATD_SCREENSHOTS === "1" ? "docs/screenshots" : null;
const WAIT = { timeout: 30_000 };
const base = () => inject("clientBaseUrl");

let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: inject("chromiumPath"),
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  page = await context.newPage();
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
});

const shot = async (p: Page, name: string) => {
  if (SHOTS) await p.screenshot({ path: `${SHOTS}/${name}.png` });
};
const composer = (p: Page) => p.getByRole("textbox", { name: "Message" });
const assistantTexts = (p: Page) => p.locator(".message.assistant:not(.streaming) .text");
const lastAssistant = (p: Page) => assistantTexts(p).last();

/** What the page drew, as recorded by recordDrawn (read with `page.evaluate(DRAWN)`). */
const DRAWN = "window.__drawn";
/**
 * A script for the page (as text: this file is compiled without the DOM's types) that records the
 * text of every `selector` element drawn from now on, however briefly it stands.
 */
const recordDrawn = (selector: string) => `{
  ${DRAWN} = [];
  new MutationObserver(() => {
    for (const el of document.querySelectorAll(${JSON.stringify(selector)})) ${DRAWN}.push(el.textContent ?? "");
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
}`;

async function openChat(p: Page, chatId: string): Promise<void> {
  await p.goto(`${base()}/chats/${chatId}`);
  await composer(p).waitFor(WAIT);
}

describe("the web app in Chromium", () => {
  it("signs in with email and password (an HttpOnly cookie no script reads), creates a chat and streams a reply in", async () => {
    await page.goto(base());
    // The page first asks whether its cookie signs it in; then the form.
    await page.getByLabel("Email").waitFor(WAIT);
    await shot(page, "sign-in");
    // Single sign-on is off in this project: no button for it.
    expect(await page.getByRole("link", { name: "Sign in with single sign-on" }).count()).toBe(0);
    await page.getByLabel("Email").fill(inject("clientEmail"));
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").waitFor(WAIT);
    await page.getByLabel("Password").fill(inject("clientPassword"));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "New chat" }).click();
    await page.waitForURL(/\/chats\/[0-9a-f-]{36}$/, WAIT);
    const session = (await context.cookies()).find((c) => c.name === "coder_session_token");
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe("Lax");
    expect(await page.evaluate("document.cookie")).not.toContain("coder_session_token");

    await composer(page).fill("/slow 120 streaming words arrive one by one in the browser");
    await composer(page).press("Enter");
    // Seen while streaming, then committed.
    await page.locator(".message.streaming .text").waitFor(WAIT);
    await shot(page, "chat-streaming");
    await expect.poll(() => lastAssistant(page).textContent(), WAIT).toBe("streaming words arrive one by one in the browser");
    await expect.poll(() => page.locator(".chat-list a[aria-current=page] .badge").textContent(), WAIT).toBe("waiting");
    // The turn's status label lands under the title in the list, the chat's summary as its tooltip
    // (the fake model's summary answer quotes the prompts).
    const subtitle = page.locator(".chat-list a[aria-current=page] .subtitle");
    await expect.poll(() => subtitle.textContent(), WAIT).toBe("Replied to: /slow 120 streaming words arrive one by one in the browser");
    expect(await subtitle.getAttribute("title")).toBe("The user asked: /slow 120 streaming words arrive one by one in the browser");
  });

  it("queues two messages while busy, promotes the second, then interrupts", async () => {
    // The busy reply holds after its first word until the gate opens: on a loaded machine a paced
    // reply could end before both queued messages were shown, and the queue would run empty.
    const busy = newGate("web-queue");
    await composer(page).fill(`/gate ${busy} 150 ${"busy ".repeat(60).trim()}`);
    await composer(page).press("Enter");
    await page.locator(".message.streaming").waitFor(WAIT);
    for (const t of ["first queued", "second queued"]) {
      await composer(page).fill(t);
      await page.getByRole("button", { name: "Queue", exact: true }).click();
    }
    const queued = page.getByRole("region", { name: "Queued messages" }).locator("li .queued-text");
    await expect.poll(() => queued.allTextContents(), WAIT).toEqual(["first queued", "second queued"]);
    await shot(page, "chat-queue");
    // Promoting makes the second the next to run (it interrupts the reply); the first waits its turn.
    await page.getByRole("region", { name: "Queued messages" }).locator("li").nth(1).getByRole("button", { name: "Promote" }).click();
    await openGate(busy);
    const userTexts = () => page.locator(".message.user .text").allTextContents();
    await expect.poll(async () => (await userTexts()).slice(-2), { timeout: 60_000 }).toEqual(["second queued", "first queued"]);
    await expect.poll(() => queued.count(), { timeout: 60_000 }).toBe(0);

    await composer(page).fill(`/slow 150 ${"long ".repeat(60).trim()}`);
    await composer(page).press("Enter");
    await page.locator(".message.streaming").waitFor(WAIT);
    await composer(page).fill("interrupting now");
    await page.getByRole("button", { name: "Interrupt and send" }).click();
    // The long reply is cut short; the interrupting message is answered.
    await expect.poll(async () => (await userTexts()).at(-1), { timeout: 60_000 }).toBe("interrupting now");
    await expect.poll(async () => (await assistantTexts(page).allTextContents()).at(-1), { timeout: 60_000 }).toBe("interrupting now");
    const cut = (await assistantTexts(page).allTextContents()).find((t) => t.startsWith("long"));
    expect(cut === undefined || cut.split(" ").length < 60).toBe(true);
  });

  it("edits a past user message: the turn reruns from it", async () => {
    const first = page.locator(".message.user").first();
    await first.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Edit message").fill("edited words");
    await page.getByRole("button", { name: "Save and rerun" }).click();
    await expect.poll(() => page.locator(".message.user .text").allTextContents(), WAIT).toEqual(["edited words"]);
    await expect.poll(() => assistantTexts(page).allTextContents(), WAIT).toEqual(["edited words"]);
  });

  it("answers a pending dynamic tool call", async () => {
    const chat = await sdk().createChat({
      body: {
        content: [text('/tool ask_user {"question":"proceed?"}')],
        unsafe_dynamic_tools: [{ name: "ask_user", description: "asks the user", input_schema: { type: "object" } }],
      },
    });
    await openChat(page, chat.id);
    const form = page.getByRole("form", { name: "Pending tool calls" });
    await form.waitFor(WAIT);
    await shot(page, "chat-tool-call");
    await form.getByRole("textbox").fill("yes");
    await form.getByRole("button", { name: "Send results" }).click();
    await expect.poll(() => lastAssistant(page).textContent(), WAIT).toBe("tool result received: yes");
  });

  it("shows the open chat's cost in its header and the user's total in the sidebar", async () => {
    const client = sdk();
    const organization = (await client.me()).organization_ids[0]!;
    const config = (await client.listModels({ organization })).models.find((c) => c.is_default)!;
    const pricing = { input_micros_per_million_tokens: 2_000_000, output_micros_per_million_tokens: 10_000_000 };
    await client.updateModelConfig({ organization, id: config.id, body: { pricing } });
    try {
      const chat = await client.createChat({ body: { content: [text(`/usage 1000 0 100 0 priced reply`)] } });
      await openChat(page, chat.id);
      await expect.poll(() => lastAssistant(page).textContent(), WAIT).toBe("priced reply");
      // 1000 tokens at $2 and 100 at $10 per million: $0.003.
      await expect.poll(() => page.locator(".badge-cost").textContent(), WAIT).toBe("Cost $0.0030");
      expect(await page.locator(".badge-cost").getAttribute("title")).toContain("$0.003 exactly: 1000 input and 100 output tokens");
      await expect.poll(() => page.locator(".user-cost").textContent(), WAIT).toMatch(/^Last 30 days: \$\d+\.\d+$/);
    } finally {
      await client.updateModelConfig({ organization, id: config.id, body: { pricing: null } });
    }
  });

  it("shows the retry countdown while the model fails, then the error banner with the error's detail", async () => {
    // The page watches the chat before the send, and keeps every retry banner it draws: the banner
    // stands for the 1 s backoff only, shorter than a page load on a loaded machine.
    const flaky = await sdk().createChat({ body: { content: [] } });
    await openChat(page, flaky.id);
    await page.evaluate(recordDrawn(".retry.banner"));
    await sdk().sendMessage({ chat: flaky.id, body: { content: [text(`/error 503 1 recovered ${crypto.randomUUID().slice(0, 8)}`)] } });
    await expect.poll(() => page.evaluate(DRAWN), WAIT).toContainEqual(expect.stringMatching(/retrying in \d+ s/));
    await expect.poll(() => page.locator(".message.assistant .text").count(), WAIT).toBe(1);
    await expect.poll(() => page.locator(".retry.banner").count(), WAIT).toBe(0);

    const broken = await sdk().createChat({ body: { content: [text("/error 400")] } });
    await openChat(page, broken.id);
    const banner = page.locator(".error.banner");
    await banner.waitFor(WAIT);
    await shot(page, "chat-error");
    expect(await banner.textContent()).toMatch(/400/);
  });

  it("stops a turn, then archives the chat and brings it back", async () => {
    const chat = await sdk().createChat({ body: { content: [text("/hang")] } });
    await openChat(page, chat.id);
    const badge = page.locator(".chat-head .badge").first();
    await expect.poll(() => badge.textContent(), WAIT).toBe("running");
    await page.getByRole("button", { name: "Stop" }).click();
    await expect.poll(() => badge.textContent(), WAIT).toBe("waiting");

    const inList = () => page.locator(`.chat-list a[href="/chats/${chat.id}"]`).count();
    await expect.poll(inList, WAIT).toBe(1);
    await page.getByRole("button", { name: "Archive", exact: true }).click();
    await expect.poll(inList, WAIT).toBe(0);
    await page.getByLabel("Archived").check();
    await expect.poll(inList, WAIT).toBe(1);
    await page.getByRole("button", { name: "Unarchive" }).click();
    await expect.poll(inList, WAIT).toBe(0);
    await page.getByLabel("Archived").uncheck();
    await expect.poll(inList, WAIT).toBe(1);
  });

  it("keeps the chat list and the open chat's heading live from the chat list watch, without reading the list again", async () => {
    await context.addCookies([{ name: "coder_session_token", value: inject("clientToken"), url: base() }]);
    const opened = await sdk().createChat({ body: { content: [], title: `Open ${crypto.randomUUID()}` } });
    await openChat(page, opened.id);
    const inList = (id: string) => page.locator(`.chat-list a[href="/chats/${id}"] .title`);
    await expect.poll(() => inList(opened.id).count(), WAIT).toBe(1);
    // From here on the list may not be read again: everything below comes over the watch.
    const listReads: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (request.method() === "GET" && url.pathname === "/api/v2/chats") listReads.push(url.search);
    });
    // Another client of the same user (a second device) creates, renames and archives a chat.
    const other = sdk();
    const made = await other.createChat({ body: { content: [], title: "made elsewhere" } });
    await expect.poll(() => inList(made.id).textContent(), WAIT).toBe("made elsewhere");
    await other.updateChat({ chat: made.id, body: { title: "renamed elsewhere" } });
    await expect.poll(() => inList(made.id).textContent(), WAIT).toBe("renamed elsewhere");
    await other.updateChat({ chat: made.id, body: { archived: true } });
    await expect.poll(() => inList(made.id).count(), WAIT).toBe(0);
    // The open chat's heading and plan badge follow the watch too.
    await other.updateChat({ chat: opened.id, body: { title: "heading from the watch", plan_mode: "plan" } });
    await expect.poll(() => page.locator('section.chat[aria-label="Chat heading from the watch"]').count(), WAIT).toBe(1);
    await expect.poll(() => inList(opened.id).textContent(), WAIT).toBe("heading from the watch");
    // Longer than the old 3 s poll: still no read of the list.
    await page.waitForTimeout(3_500);
    expect(listReads).toEqual([]);
  });

  it("archives a running chat from its Archive button (it is stopped first), and draws its turn timeline", async () => {
    await context.addCookies([{ name: "coder_session_token", value: inject("clientToken"), url: base() }]);
    const chat = await sdk().createChat({ body: { content: [text("the timeline shows this turn")] } });
    await openChat(page, chat.id);
    const badge = page.locator(".chat-head .badge").first();
    await expect.poll(() => badge.textContent(), WAIT).toBe("waiting");
    await page.getByRole("button", { name: "Turns" }).click();
    const timeline = page.getByRole("region", { name: "Turn timeline" });
    await expect.poll(() => timeline.locator(".turn-outcome").first().textContent(), WAIT).toBe("completed");
    await expect.poll(() => timeline.locator(".stage-name").allTextContents(), WAIT).toEqual(expect.arrayContaining(["stream", "commit"]));
    await shot(page, "turn-timeline");

    await sdk().sendMessage({ chat: chat.id, body: { content: [text("/hang")] } });
    await expect.poll(() => badge.textContent(), WAIT).toBe("running");
    await page.getByRole("button", { name: "Archive", exact: true }).click();
    await expect.poll(() => page.getByRole("button", { name: "Unarchive" }).count(), WAIT).toBe(1);
    expect(await sdk().getChat({ chat: chat.id })).toMatchObject({ archived: true, status: "waiting" });
    // The stopped turn is on the timeline too.
    await expect.poll(() => timeline.locator(".turn-outcome").first().textContent(), WAIT).toBe("interrupted");
  });

  it("turns a chat's debug runs on in the turn view and shows a turn's request and response", async () => {
    await context.addCookies([{ name: "coder_session_token", value: inject("clientToken"), url: base() }]);
    const chat = await sdk().createChat({ body: { content: [] } });
    await openChat(page, chat.id);
    await page.getByRole("button", { name: "Turns" }).click();
    const recording = page.getByLabel("Record debug runs");
    await expect.poll(() => recording.isChecked(), WAIT).toBe(false);
    await recording.check();
    await expect.poll(() => recording.isChecked(), WAIT).toBe(true);
    // The box shows checked before the server has the switch: a turn sent before the PUT lands is
    // not recorded, so the test waits for the server's word (a flake on a loaded machine, until this).
    const serverSwitch = async () => {
      const res = await fetch(`${base()}/api/experimental/chats/${chat.id}/debug`, {
        headers: { authorization: `Bearer ${inject("clientToken")}` },
      });
      return ((await res.json()) as { enabled?: boolean }).enabled;
    };
    await expect.poll(serverSwitch, WAIT).toBe(true);

    await sdk().sendMessage({ chat: chat.id, body: { content: [text("debug this turn please")] } });
    const timeline = page.getByRole("region", { name: "Turn timeline" });
    await expect.poll(() => timeline.locator(".turn-outcome").first().textContent(), WAIT).toBe("completed");
    await timeline.locator(".turn-debug summary").first().click();
    // The turn's whole section is read (it always exists), so a failure shows what it held instead:
    // still loading, an error, or no runs.
    await expect.poll(() => timeline.locator(".turn-debug").first().textContent(), WAIT).toMatch(/step · .+ · 200 · \d+ ms · stop/);
    const run = timeline.locator(".debug-runs button").first();
    expect(await run.textContent()).toMatch(/^step · .+ · 200 · \d+ ms · stop/);
    await run.click();
    const shown = page.getByRole("region", { name: "Debug run" });
    await expect.poll(() => shown.textContent(), WAIT).toContain("debug this turn please");
    const text_ = (await shown.textContent()) ?? "";
    // The request as sent: its headers (this stack's provider has no key; an auth header would read [REDACTED]) and body.
    expect(text_).toContain('"content-type": "application/json"');
    expect(text_).not.toMatch(/Bearer /i);
    expect(text_).toContain("data:");
    await shot(page, "debug-runs");
  });

  it("clears and compacts the context from the chat's actions, and shows a refusal when there is nothing to do", async () => {
    // Signed in already when the file runs in order; on its own (-t) it needs the session cookie.
    await context.addCookies([{ name: "coder_session_token", value: inject("clientToken"), url: base() }]);
    const chat = await sdk().createChat({ body: { content: [text("remember the word alpha")] } });
    await openChat(page, chat.id);
    const badge = page.locator(".chat-head .badge").first();
    await expect.poll(() => lastAssistant(page).textContent(), WAIT).toBe("remember the word alpha");
    await expect.poll(() => badge.textContent(), WAIT).toBe("waiting");
    const toolNamed = (name: string) => page.locator(".message .tool", { has: page.locator("code", { hasText: name }) });
    const refusal = (what: string) => page.getByRole("alert").filter({ hasText: `There is nothing to ${what}.` });

    // Clear: a chat_cleared call and result close the context; the history stays on screen.
    await page.getByRole("button", { name: "Clear", exact: true }).click();
    await expect.poll(() => toolNamed("chat_cleared").count(), WAIT).toBe(2);
    expect(await page.locator(".message.user .text").allTextContents()).toContain("remember the word alpha");
    await expect.poll(() => badge.textContent(), WAIT).toBe("waiting");
    // Nothing since the boundary: a second clear is refused (409), and the refusal is shown.
    await page.getByRole("button", { name: "Clear", exact: true }).click();
    await refusal("clear").waitFor(WAIT);

    // A turn after the boundary, then Compact: the worker summarizes it; the visible boundary is
    // the chat_summarized call and its result, marked manual.
    await composer(page).fill("after the clear");
    await composer(page).press("Enter");
    await expect.poll(() => lastAssistant(page).textContent(), WAIT).toBe("after the clear");
    await expect.poll(() => badge.textContent(), WAIT).toBe("waiting");
    await page.getByRole("button", { name: "Compact", exact: true }).click();
    await expect.poll(() => toolNamed("chat_summarized").count(), WAIT).toBe(2);
    expect(await toolNamed("chat_summarized").last().locator("pre").textContent()).toMatch(/"source": "manual"/);
    await expect.poll(() => badge.textContent(), WAIT).toBe("waiting");
    expect(await refusal("clear").count()).toBe(0);
    await page.getByRole("button", { name: "Compact", exact: true }).click();
    await refusal("compact").waitFor(WAIT);
  });

  it("sends with a picked model and reasoning effort, and with an attached file", async () => {
    const client = sdk();
    const organization = inject("clientOrganizationId");
    const { models: configs } = await client.listModels({ organization });
    const name = `Thinker ${crypto.randomUUID().slice(0, 8)}`;
    const config = await client.createModelConfig({
      organization,
      body: {
        provider_id: configs[0]!.provider_id,
        model: "fake-thinker",
        display_name: name,
        options: { reasoning_effort: { default: "low", max: "high" } },
      },
    });
    const chat = await client.createChat({ body: { content: [] } });
    await page.reload(); // the app reads the organization's models when it starts
    await openChat(page, chat.id);
    await page.getByLabel("Model").selectOption({ label: name });
    const efforts = await page.getByLabel("Reasoning").locator("option").allTextContents();
    expect(efforts.slice(1)).toEqual(["none", "minimal", "low", "medium", "high"]);
    await page.getByLabel("Reasoning").selectOption("high");
    await page.getByLabel("Attach").setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("some notes") });
    await page.getByRole("list", { name: "Attachments" }).getByText("notes.txt").waitFor(WAIT);
    await composer(page).fill("with a file");
    await composer(page).press("Enter");
    await page.locator(".message.user").getByText("notes.txt").waitFor(WAIT);
    const { messages } = await client.listMessages({ chat: chat.id });
    const sent = messages.find((m) => m.role === "user")!;
    expect([sent.model_config_id, sent.reasoning_effort]).toEqual([config.id, "high"]);
    expect(sent.content.map((p) => p.type)).toEqual(["text", "file"]);
  });

  it("shows the same state after a reload mid-stream, and in a second tab", async () => {
    // The answer holds after its first word until the gate opens: the reload lands mid-answer
    // however loaded the machine is.
    const gate = newGate("reload");
    const words = Array.from({ length: 40 }, (_, i) => `r${i}`).join(" ");
    const chat = await sdk().createChat({ body: { content: [] } });
    await openChat(page, chat.id);
    const second = await context.newPage();
    await openChat(second, chat.id);
    await composer(page).fill(`/gate ${gate} 50 ${words}`);
    await composer(page).press("Enter");
    const streaming = (p: Page) => p.locator(".message.streaming .text").textContent({ timeout: 30_000 });
    await expect.poll(async () => (await streaming(page))?.trim() ?? "", WAIT).toBe("r0");
    await page.reload();
    // The reloaded tab shows the answer so far from the chat's part buffer, then the rest.
    await expect.poll(async () => (await streaming(page))?.trim() ?? "", WAIT).toBe("r0");
    await openGate(gate);
    for (const p of [page, second]) await expect.poll(() => lastAssistant(p).textContent(), { timeout: 60_000 }).toBe(words);
    // The two tabs hold the same history.
    const history = (p: Page) => p.locator(".messages .text").allTextContents();
    expect(await history(second)).toEqual(await history(page));
    await second.close();
  });

  it("fits a phone's width, and has a dark scheme", async () => {
    // Expressions evaluated in the page (this file is typed for Node, without the DOM).
    const background = (p: Page) => p.evaluate<string>("getComputedStyle(document.body).backgroundColor");
    await page.emulateMedia({ colorScheme: "light" });
    const light = await background(page);
    await page.emulateMedia({ colorScheme: "dark" });
    await shot(page, "chat-dark");
    // The dark scheme's background (--bg, #14171c), not the light one's.
    expect([light, await background(page)]).toEqual(["rgb(255, 255, 255)", "rgb(20, 23, 28)"]);
    await page.emulateMedia({ colorScheme: "light" });

    const phone = await browser.newContext({ viewport: { width: 390, height: 760 }, colorScheme: "light" });
    await phone.addCookies(await context.cookies());
    const p = await phone.newPage();
    await p.goto(page.url());
    await p.locator(".message.assistant").first().waitFor(WAIT);
    await shot(p, "chat-phone");
    // Nothing scrolls sideways, and the composer is on screen, whole.
    expect(await p.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    const box = await composer(p).boundingBox();
    expect(box).not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    expect(box!.y + box!.height).toBeLessThanOrEqual(760);
    await phone.close();
  });

  it("signs out for real: the session is revoked on the server, not only forgotten", async () => {
    const own = await browser.newContext();
    const p = await own.newPage();
    await p.goto(base());
    await p.getByLabel("Email").fill(inject("clientEmail"));
    await p.getByLabel("Password").fill(inject("clientPassword"));
    await p.getByRole("button", { name: "Sign in" }).click();
    await p.getByRole("button", { name: "New chat" }).waitFor(WAIT);
    const session = (await own.cookies()).find((c) => c.name === "coder_session_token")?.value ?? "";
    const me = (token: string) =>
      fetch(`${base()}/api/v2/users/me`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.status);
    expect(await me(session)).toBe(200);
    await p.getByRole("button", { name: "Sign out" }).click();
    await p.getByLabel("Email").waitFor(WAIT);
    expect(await me(session)).toBe(401);
    // A reload does not sign the page back in.
    await p.reload();
    await p.getByLabel("Email").waitFor(WAIT);
    await own.close();
  });

  it("still signs in with an API token, kept in memory for the page only", async () => {
    const own = await browser.newContext();
    const p = await own.newPage();
    await p.goto(base());
    await p.getByLabel("API token").fill("wrong-token");
    await p.getByRole("button", { name: "Use token" }).click();
    await p.getByRole("alert").waitFor(WAIT);
    await p.getByLabel("API token").fill(inject("clientToken"));
    await p.getByRole("button", { name: "Use token" }).click();
    await p.getByRole("button", { name: "New chat" }).click();
    await p.waitForURL(/\/chats\/[0-9a-f-]{36}$/, WAIT);
    await composer(p).fill("over a pasted token");
    await composer(p).press("Enter");
    await expect.poll(() => lastAssistant(p).textContent(), WAIT).toBe("over a pasted token");
    expect((await own.cookies()).map((c) => c.name)).not.toContain("coder_session_token");
    await own.close();
  });

  it("mints and revokes API tokens, and adds, promotes and removes members in Settings", async () => {
    const me = (token: string) =>
      fetch(`${base()}/api/v2/users/me`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.status);
    await page.goto(`${base()}/settings`);
    await page.getByLabel("Token name").waitFor(WAIT);
    await shot(page, "settings");
    await page.getByLabel("Token name").fill("from-the-web");
    await page.getByRole("button", { name: "Create token" }).click();
    const token = await page.getByLabel("New token, shown this once").inputValue(WAIT);
    expect(await me(token)).toBe(200);
    const row = page.locator('tr[data-token-name="from-the-web"]');
    await row.waitFor(WAIT);
    await row.getByRole("button", { name: "Revoke" }).click();
    await expect.poll(() => row.count(), WAIT).toBe(0);
    expect(await me(token)).toBe(401);

    // A user of another organization, added to this one from the page.
    const client = sdk();
    const organizationId = inject("clientOrganizationId");
    const elsewhere = await client.createOrganization({ body: { name: `web-${crypto.randomUUID().slice(0, 8)}` } });
    const username = `web${crypto.randomUUID().replace(/-/g, "").slice(0, 10)}`;
    await client.createUser({ body: { email: `${username}@example.com`, username, organization_id: elsewhere.id } });
    const roleOf = async () => (await client.listMembers({ organization: organizationId })).find((m) => m.username === username)?.role;
    await page.getByLabel("Username or user ID").fill(username);
    await page.getByRole("button", { name: "Add member" }).click();
    const member = page.locator(`tr[data-member="${username}"]`);
    await member.waitFor(WAIT);
    expect(await roleOf()).toBe("member");
    await page.getByLabel(`Role of ${username}`).selectOption("admin");
    await expect.poll(roleOf, WAIT).toBe("admin");
    await page.getByRole("button", { name: `Remove ${username}` }).click();
    await expect.poll(() => member.count(), WAIT).toBe(0);
    expect(await roleOf()).toBeUndefined();
  });

  it("adds a provider, a model config on it and an MCP server in Settings, and removes them", async () => {
    const client = sdk();
    const organization = inject("clientOrganizationId");
    const tag = crypto.randomUUID().slice(0, 8);
    await page.goto(`${base()}/settings`);
    await page.getByLabel("Provider name").fill(`web-provider-${tag}`);
    await page.getByLabel("Base URL").fill("http://127.0.0.1:9/v1");
    await page.getByLabel("API key").fill("sk-from-the-web");
    await page.getByRole("button", { name: "Add provider" }).click();
    await page.locator(`tr[data-provider="web-provider-${tag}"]`).waitFor(WAIT);
    const provider = (await client.listProviders()).find((p) => p.name === `web-provider-${tag}`);
    expect(provider).toBeDefined();
    expect(JSON.stringify(provider)).not.toContain("sk-from-the-web");

    await page.reload();
    await page.getByLabel("Provider", { exact: true }).selectOption({ label: `web-provider-${tag}` });
    await page.getByLabel("Model", { exact: true }).fill(`web-model-${tag}`);
    await page.getByRole("button", { name: "Add model config" }).click();
    const config = page.locator(`tr[data-model-config="web-model-${tag}"]`);
    await config.waitFor(WAIT);
    expect((await client.listModelConfigs({ organization })).map((c) => c.model)).toContain(`web-model-${tag}`);
    await page.getByRole("button", { name: `Delete web-model-${tag}` }).click();
    await expect.poll(() => config.count(), WAIT).toBe(0);
    expect((await client.listModelConfigs({ organization })).map((c) => c.model)).not.toContain(`web-model-${tag}`);

    await page.getByLabel("Server name").fill(`web-tools-${tag}`);
    await page.getByLabel("Server URL").fill("http://127.0.0.1:9/mcp");
    await page.getByRole("button", { name: "Add MCP server" }).click();
    const server = page.locator(`tr[data-mcp-server="web-tools-${tag}"]`);
    await server.waitFor(WAIT);
    expect((await client.listMcpServers({ organization })).map((m) => m.name)).toContain(`web-tools-${tag}`);
    await page.getByRole("button", { name: `Remove web-tools-${tag}` }).click();
    await expect.poll(() => server.count(), WAIT).toBe(0);
    await client.deleteProvider({ id: provider?.id ?? "" });
  });
});
