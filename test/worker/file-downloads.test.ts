/**
 * The download route's headers (src/files/download-headers.ts): a file never runs as a page of the
 * app's origin. Raster images and plain text are inline; anything else, whatever type it was
 * declared or stored with, is an attachment; every download is sandboxed and nosniff.
 */
import { SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { chatFiles } from "../../src/db/schema/files";
import { api, BASE, createTestUser, expectJson, type TestUser, withDb } from "./support/accounts";

async function upload(user: TestUser, body: string, type: string, name: string): Promise<string> {
  const res = await SELF.fetch(`${BASE}/chats/files?organization=${user.organizationId}&name=${encodeURIComponent(name)}`, {
    method: "POST",
    headers: { authorization: `Bearer ${user.token}`, "content-type": type },
    body,
  });
  return (await expectJson<{ id: string }>(res, 201)).id;
}

async function download(user: TestUser, id: string): Promise<Response> {
  const res = await api(`/chats/files/${id}`, { token: user.token });
  expect(res.status).toBe(200);
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("content-security-policy")).toMatch(/^sandbox; default-src 'none'/);
  return res;
}

describe("file downloads", () => {
  it("serves a PNG and plain text inline, named", async () => {
    const u = await createTestUser();
    const png = await download(u, await upload(u, "\x89PNG", "image/png", "dot.png"));
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(png.headers.get("content-disposition")).toBe(`inline; filename="dot.png"; filename*=UTF-8''dot.png`);
    await png.arrayBuffer();
    const txt = await download(u, await upload(u, "<script>alert(1)</script>", "text/plain", "notes.txt"));
    expect(txt.headers.get("content-type")).toBe("text/plain");
    expect(txt.headers.get("content-disposition")).toMatch(/^inline;/);
    await txt.arrayBuffer();
  });

  it("makes HTML, SVG, XML, JavaScript and PDF attachments, whatever their case or parameters", async () => {
    const u = await createTestUser();
    const types = ["TEXT/HTML; charset=utf-8", "application/xhtml+xml", "image/svg+xml", "text/xml", "text/javascript", "application/pdf"];
    for (const type of types) {
      const res = await download(u, await upload(u, "<script>top.pwned = 1</script>", type, "page.html"));
      expect([type, res.headers.get("content-disposition")]).toEqual([
        type,
        `attachment; filename="page.html"; filename*=UTF-8''page.html`,
      ]);
      await res.arrayBuffer();
    }
  });

  it("judges the stored type as the route reads it, not as the upload wrote it", async () => {
    const u = await createTestUser();
    const id = await upload(u, "<html>", "text/plain", "sneaky.txt");
    // A row written by anything but this upload route (an older version, a migration, a script).
    await withDb((db) => db.update(chatFiles).set({ mediaType: "Text/HTML ;charset=utf-8" }).where(eq(chatFiles.id, id)));
    const res = await download(u, id);
    expect(res.headers.get("content-type")).toBe("text/html");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment;/);
    await res.arrayBuffer();
  });

  it("encodes a hostile name so it stays one quoted filename", async () => {
    const u = await createTestUser();
    const res = await download(u, await upload(u, "x", "text/html", 'a";b=c.html\u00e9'));
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="a_;b=c.html_"; filename*=UTF-8''a%22%3Bb%3Dc.html%C3%A9`);
    await res.arrayBuffer();
  });
});
