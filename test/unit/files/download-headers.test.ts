/**
 * The download headers (src/files/download-headers.ts): only inert types inline, whatever their
 * spelling; every download sandboxed and nosniff; any name a safe Content-Disposition.
 */
import { describe, expect, it } from "vitest";
import { contentDisposition, DOWNLOAD_CSP, downloadHeaders } from "../../../src/files/download-headers";
import { isInlineImage, mediaTypeEssence } from "../../../src/files/inert-media-types";

const headers = (mediaType: string, name = "f") => downloadHeaders({ mediaType, name, sizeBytes: 3 });
const disposition = (mediaType: string) => headers(mediaType)["content-disposition"]!.split(";")[0];

describe("download headers", () => {
  it("shows raster images and plain text inline", () => {
    for (const t of ["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "text/plain"]) {
      expect(disposition(t)).toBe("inline");
      expect(headers(t)["content-type"]).toBe(t);
    }
  });

  it("makes every type a browser would run or render as a page an attachment, however it is spelled", () => {
    const active = [
      "text/html",
      "TEXT/HTML",
      "text/html; charset=utf-8",
      " Text/Html ;charset=UTF-7",
      "application/xhtml+xml",
      "image/svg+xml",
      "IMAGE/SVG+XML; charset=utf-8",
      "text/xml",
      "application/xml",
      "text/javascript",
      "application/javascript",
      "application/pdf",
      "text/css",
      "application/octet-stream",
      "text/plain, text/html",
      "image/png text/html",
      "",
      "nonsense",
    ];
    for (const t of active) expect([t, disposition(t)]).toEqual([t, "attachment"]);
    expect(headers("TEXT/HTML; charset=utf-8")["content-type"]).toBe("text/html");
    expect(headers("text/plain, text/html")["content-type"]).toBe("application/octet-stream");
  });

  it("sandboxes and forbids sniffing on every download", () => {
    for (const t of ["image/png", "text/html", "text/plain"]) {
      expect(headers(t)).toMatchObject({
        "content-security-policy": DOWNLOAD_CSP,
        "x-content-type-options": "nosniff",
        "cross-origin-resource-policy": "same-origin",
      });
    }
    expect(DOWNLOAD_CSP).toMatch(/^sandbox;/);
    expect(DOWNLOAD_CSP).toContain("default-src 'none'");
  });

  it("draws only raster images as <img> in the web app", () => {
    expect(["image/png", "IMAGE/WEBP; x=1", "image/svg+xml", "text/plain"].map(isInlineImage)).toEqual([true, true, false, false]);
    expect(mediaTypeEssence("Image/PNG ; q=1")).toBe("image/png");
  });
});

describe("Content-Disposition", () => {
  it("gives an ASCII fallback and the exact name RFC 8187-encoded", () => {
    expect(contentDisposition("attachment", "a b.txt")).toBe(`attachment; filename="a b.txt"; filename*=UTF-8''a%20b.txt`);
    expect(contentDisposition("inline", "résumé (1)*'.png")).toBe(
      `inline; filename="r_sum_ (1)*'.png"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%281%29%2A%27.png`,
    );
  });

  it("lets no name break out of the header, the quotes or the folder", () => {
    const hostile = 'x"; filename=evil.html\r\nSet-Cookie: a=b\\..%2F/etc/passwd\uD800';
    const value = contentDisposition("attachment", hostile);
    // A valid header value (Headers would throw on CR or LF), one quoted string, no path or escape.
    expect(() => new Headers({ "content-disposition": value })).not.toThrow();
    const fallback = /filename="([^"]*)";/.exec(value)?.[1];
    expect(fallback).toBe("x_; filename=evil.html__Set-Cookie: a=b_.._2F_etc_passwd_");
    expect(value.split('"').length).toBe(3);
    expect(value).toMatch(/filename\*=UTF-8''[A-Za-z0-9%!#$&+\-.^_`|~]+$/);
  });
});
