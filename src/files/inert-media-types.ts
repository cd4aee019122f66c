/**
 * Which stored files a browser may show inline (docs/hardening.md "Files and the web app"). Only
 * types a browser draws without running anything: raster images and plain text. Everything else,
 * HTML, XHTML, SVG, XML, JavaScript, PDF (its viewer runs scripts) and any unknown type, is a
 * download. The web app imports this too, to decide which attachments it draws as an <img>.
 */

/** Shown inline: the browser decodes them, never executes them. */
export const INERT_INLINE_TYPES: ReadonlySet<string> = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/avif",
  "text/plain",
]);

/** Of those, the ones the web app draws as an <img>. */
export const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set([...INERT_INLINE_TYPES].filter((t) => t.startsWith("image/")));

// RFC 9110's token characters, lowercase: a type/subtype and nothing else.
const ESSENCE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

/**
 * The media type without parameters or case ("TEXT/HTML; charset=utf-8" → "text/html"), or
 * application/octet-stream when it is not a well-formed type: nothing can slip past the lists by
 * its spelling.
 */
export function mediaTypeEssence(declared: string): string {
  const essence = (declared.split(";")[0] ?? "").trim().toLowerCase();
  return ESSENCE.test(essence) ? essence : "application/octet-stream";
}

export function isInertInline(declared: string): boolean {
  return INERT_INLINE_TYPES.has(mediaTypeEssence(declared));
}

export function isInlineImage(declared: string): boolean {
  return INLINE_IMAGE_TYPES.has(mediaTypeEssence(declared));
}
