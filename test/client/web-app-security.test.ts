/**
 * The web app's hardening in a real Chromium (docs/hardening.md "Files and the web app"): the
 * strict CSP and the other headers on every page, an injected inline script refused, the model's
 * Markdown rendered with nothing hostile in it running, and attachments never opened as a page of
 * the app's origin. Each payload would set `window.__pwned`; it must stay unset.
 */
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { text } from "../../client/src/index";
import { sdk } from "./support";

const WAIT = { timeout: 30_000 };
const base = () => inject("clientBaseUrl");
const PWNED = "window.__pwned ?? null";

let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: inject("chromiumPath"),
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  await context.addCookies([{ name: "coder_session_token", value: inject("clientToken"), url: base() }]);
  page = await context.newPage();
});
afterAll(async () => {
  await browser?.close();
});

async function openChat(chatId: string): Promise<void> {
  await page.goto(`${base()}/chats/${chatId}`);
  await page.getByRole("textbox", { name: "Message" }).waitFor(WAIT);
}

describe("the web app's headers", () => {
  it("serves the app, its assets and the index.html of any app path with a strict CSP, nosniff and no framing", async () => {
    const html = await fetch(`${base()}/`).then((r) => r.text());
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    for (const path of ["/", `/chats/${crypto.randomUUID()}`, "/settings", script!]) {
      const res = await fetch(`${base()}${path}`);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      const csp = res.headers.get("content-security-policy") ?? "";
      const directives = Object.fromEntries(
        csp.split(";").map((d) =>
          d
            .trim()
            .split(/\s+(.*)/)
            .slice(0, 2),
        ),
      );
      expect([path, directives]).toMatchObject([
        path,
        {
          "default-src": "'self'",
          "script-src": "'self'",
          "connect-src": "'self'",
          "object-src": "'none'",
          "base-uri": "'none'",
          "frame-ancestors": "'none'",
        },
      ]);
      expect(csp).not.toMatch(/unsafe-|data:/);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("referrer-policy")).toBe("same-origin");
    }
    // The rules file itself is not an asset.
    expect(await fetch(`${base()}/_headers`).then((r) => r.text())).not.toContain("Content-Security-Policy");
  });

  it("refuses a script injected into the page, and works under the policy (a reply streams in over the socket)", async () => {
    const chat = await sdk().createChat({ body: { content: [] } });
    await openChat(chat.id);
    const violation = await page.evaluate<string>(`new Promise((resolve) => {
      document.addEventListener("securitypolicyviolation", (e) => resolve(e.effectiveDirective), { once: true });
      const s = document.createElement("script");
      s.textContent = "window.__pwned = 'inline'";
      document.body.append(s);
    })`);
    expect(violation).toBe("script-src-elem");
    // An event attribute is inline script too.
    await page.evaluate(`document.body.insertAdjacentHTML("beforeend", '<img src="/nothing.png" onerror="window.__pwned = 1">')`);
    await page.waitForTimeout(300);
    expect(await page.evaluate(PWNED)).toBeNull();

    const composer = page.getByRole("textbox", { name: "Message" });
    await composer.fill("under the policy");
    await composer.press("Enter");
    await expect.poll(() => page.locator(".message.assistant .text").last().textContent(), WAIT).toBe("under the policy");
  });

  it("cannot be framed by another page", async () => {
    const framing = await browser.newContext();
    const p = await framing.newPage();
    await p.setContent(`<iframe src="${base()}/"></iframe>`);
    const frame = p.frames().find((f) => f !== p.mainFrame());
    await expect.poll(() => frame?.url() ?? "", WAIT).toMatch(/^chrome-error:/);
    await framing.close();
  });
});

describe("the model's Markdown", () => {
  it("renders code blocks, emphasis and safe links, and runs nothing hostile", async () => {
    const hostile = [
      "# Title",
      "",
      "Some **bold** text and a [good link](https://example.com/page).",
      "",
      "```js",
      "const answer = 42;",
      "```",
      "",
      `<script>window.__pwned = "script"</script>`,
      "",
      `Inline <img src=x onerror="window.__pwned = 'img'"> and <a href="javascript:window.__pwned='a'">raw a</a>`,
      "",
      `<svg onload="window.__pwned = 'svg'"><script>window.__pwned = "svg script"</script></svg>`,
      "",
      `<iframe src="javascript:window.__pwned='iframe'"></iframe>`,
      "",
      "[js link](javascript:window.__pwned='link') [data link](data:text/html,<script>alert(1)</script>)",
      "",
      "![image](javascript:window.__pwned='image') ![tracker](https://example.com/leak?secret=1)",
      "",
      "[vbscript](vbscript:msgbox) [relative](/api/v2/users/me) <javascript:alert(1)>",
    ].join("\n");
    const chat = await sdk().createChat({ body: { content: [text(hostile)] } });
    await openChat(chat.id);
    const reply = page.locator(".message.assistant .text.markdown").last();
    await reply.locator("pre code").waitFor(WAIT);

    // The Markdown renders.
    expect(await reply.locator("pre code").textContent()).toBe("const answer = 42;\n");
    expect(await reply.locator("h1").textContent()).toBe("Title");
    expect(await reply.locator("strong").textContent()).toBe("bold");
    const good = reply.getByRole("link", { name: "good link" });
    expect(await good.getAttribute("href")).toBe("https://example.com/page");
    expect(await good.getAttribute("target")).toBe("_blank");
    expect(await good.getAttribute("rel")).toBe("noopener noreferrer");
    // Raw HTML is shown as the text it is.
    expect(await reply.textContent()).toContain(`<script>window.__pwned = "script"</script>`);

    // Nothing active made it into the page.
    const inside = (selector: string) => reply.locator(selector).count();
    for (const selector of ["script", "img", "svg", "iframe", "object", "embed", "style", "form", "[style]"]) {
      expect([selector, await inside(selector)]).toEqual([selector, 0]);
    }
    const attributes = await reply.evaluate((root) =>
      [...root.querySelectorAll("*")].flatMap((el) => [...el.attributes].map((a) => `${a.name}=${a.value}`)),
    );
    expect(attributes.filter((a) => /^on/i.test(a))).toEqual([]);
    const hrefs = await reply.locator("a[href]").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
    expect(hrefs).toEqual(["https://example.com/page", "https://example.com/leak?secret=1"]);
    // The dangerous links are left as text without an address; every link opens apart from the app.
    for (const name of ["js link", "data link", "image", "vbscript", "relative"]) {
      expect(await reply.getByText(name, { exact: true }).getAttribute("href")).toBeNull();
    }
    expect(await reply.locator("a[href]:not([rel='noopener noreferrer'])").count()).toBe(0);
    await reply.getByText("js link", { exact: true }).click();
    await page.waitForTimeout(300);
    expect(await page.evaluate(PWNED)).toBeNull();
  });

  it("renders the streaming preview the same way", async () => {
    const chat = await sdk().createChat({ body: { content: [] } });
    await openChat(chat.id);
    await sdk().sendMessage({
      chat: chat.id,
      body: { content: [text("/slow 100 **streamed** <script>window.__pwned=1</script> a b c d e f g h")] },
    });
    await page.locator(".message.streaming .text.markdown strong").waitFor(WAIT);
    await expect.poll(() => page.locator(".message.assistant:not(.streaming) .text strong").count(), WAIT).toBe(1);
    expect(await page.locator(".messages script").count()).toBe(0);
    expect(await page.evaluate(PWNED)).toBeNull();
  });
});

describe("attachments", () => {
  // A 1×1 PNG.
  const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
  const HTML = `<!doctype html><script>opener && (opener.__pwned = "html"); window.__pwned = "html"</script>`;
  const SVG = `<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned='svg'"><script>window.__pwned = "svg"</script></svg>`;

  it("draws a PNG as an <img>, and saves HTML and SVG as downloads, never opening them as a page", async () => {
    const client = sdk();
    const organization = inject("clientOrganizationId");
    const up = async (name: string, contentType: string, body: string | Buffer) =>
      (
        await client.uploadFile({
          query: { organization, name },
          contentType,
          body: new Uint8Array(body instanceof Buffer ? body : Buffer.from(body)),
        })
      ).id;
    const png = await up("dot.png", "image/png", PNG);
    const html = await up("page.html", "text/html", HTML);
    const svg = await up("drawing.svg", "image/svg+xml", SVG);
    const chat = await client.createChat({
      body: { content: [text("files"), ...[png, html, svg].map((file_id) => ({ type: "file" as const, file_id }))] },
    });
    await openChat(chat.id);
    const user = page.locator(".message.user").first();

    // Only the PNG is drawn, as an image of a blob: URL.
    const img = user.locator("img.attachment-image");
    await expect.poll(() => img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth), WAIT).toBe(1);
    expect(await img.getAttribute("src")).toMatch(/^blob:/);
    expect(await user.locator("img").count()).toBe(1);

    const opened: string[] = [];
    context.on("page", (p) => opened.push(p.url()));
    for (const name of ["page.html", "drawing.svg", "dot.png"]) {
      const [download] = await Promise.all([page.waitForEvent("download", WAIT), user.getByRole("button", { name: `📎 ${name}` }).click()]);
      expect(download.suggestedFilename()).toBe(name);
      await download.cancel();
    }
    await page.waitForTimeout(300);
    expect(opened).toEqual([]);
    expect(page.url()).toBe(`${base()}/chats/${chat.id}`);
    expect(await page.evaluate(PWNED)).toBeNull();
  });

  it("opened directly, an HTML file is a download and a PNG is shown, sandboxed", async () => {
    const client = sdk();
    const organization = inject("clientOrganizationId");
    const html = await client.uploadFile({
      query: { organization, name: "direct.html" },
      contentType: "text/html",
      body: new Uint8Array(Buffer.from(HTML)),
    });
    const png = await client.uploadFile({
      query: { organization, name: "direct.png" },
      contentType: "image/png",
      body: new Uint8Array(PNG),
    });
    const p = await context.newPage();
    const [download] = await Promise.all([
      p.waitForEvent("download", WAIT),
      p.goto(`${base()}/api/v2/chats/files/${html.id}`).catch(() => null),
    ]);
    expect(download.suggestedFilename()).toBe("direct.html");
    await download.cancel();

    const res = await p.goto(`${base()}/api/v2/chats/files/${png.id}`);
    expect(res?.headers()["content-security-policy"]).toMatch(/^sandbox;/);
    expect(await p.evaluate<number>("document.images[0]?.naturalWidth ?? 0")).toBe(1);
    await p.close();
  });
});
