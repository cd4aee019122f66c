/**
 * The headers of a file download (docs/hardening.md "Files and the web app"): a file is someone's
 * bytes served from the app's own origin, so nothing in it may run there. Inert types
 * (inert-media-types.ts) are shown inline; every other type is an attachment, and whatever a
 * browser does with it, a sandboxing CSP gives it an opaque origin and no script.
 */
import { isInertInline, mediaTypeEssence } from "./inert-media-types";

/**
 * No script, no plugin, no fetch, no form; an opaque origin. Inline styles only because browsers
 * draw their image and text viewers with them.
 */
export const DOWNLOAD_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'";

export function downloadHeaders(file: { mediaType: string; name: string; sizeBytes: number }): Record<string, string> {
  const inline = isInertInline(file.mediaType);
  return {
    "content-type": mediaTypeEssence(file.mediaType),
    "content-length": String(file.sizeBytes),
    "content-disposition": contentDisposition(inline ? "inline" : "attachment", file.name),
    "content-security-policy": DOWNLOAD_CSP,
    "x-content-type-options": "nosniff",
    // Another site's page cannot embed a file, even with a cookie that reaches this origin.
    "cross-origin-resource-policy": "same-origin",
    "cache-control": "private",
  };
}

/**
 * RFC 6266: an ASCII `filename` for old clients and the exact name as RFC 8187 (ex-5987)
 * `filename*`. No name can break out of the header or carry a path or a percent-escape.
 */
export function contentDisposition(kind: "inline" | "attachment", name: string): string {
  const wellFormed = name.replace(LONE_SURROGATE, "\uFFFD");
  const fallback = wellFormed.replace(/[^\x20-\x7e]|["\\/%]/g, "_");
  const encoded = encodeURIComponent(wellFormed).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

// encodeURIComponent throws on half a surrogate pair.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
