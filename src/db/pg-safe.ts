/**
 * Postgres refuses U+0000 in text and jsonb, and lone UTF-16 surrogates in jsonb. Requests are
 * checked at the edge (a 400), but text
 * the service produces itself (model output, tool results, provider error messages) reaches the
 * database unchecked, and a refused INSERT would make the runner retry the same commit forever.
 * Such text is stored with U+FFFD (the replacement character) in place of each NUL or lone
 * surrogate (what a UTF-8 encoder writes for a lone surrogate anyway).
 */

const REPLACEMENT = "\uFFFD";

const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` with every NUL and lone surrogate replaced; the same string when it has none. */
export function pgText(text: string): string;
export function pgText(text: string | null): string | null;
export function pgText(text: string | null): string | null {
  if (text === null) return null;
  const clean = text.includes("\u0000") ? text.replaceAll("\u0000", REPLACEMENT) : text;
  return clean.replace(LONE_SURROGATES, REPLACEMENT);
}

/** JSON text for a jsonb parameter, NULs and lone surrogates replaced in every string and key. */
export function pgJson(value: unknown): string {
  const json = JSON.stringify(value);
  // JSON.stringify escapes NUL as \u0000 and a lone surrogate as \udXXX; paired ones stay raw.
  return /\\u(0000|d[89a-f])/i.test(json) ? JSON.stringify(storable(value)) : json;
}

function storable(value: unknown): unknown {
  if (typeof value === "string") return pgText(value);
  if (Array.isArray(value)) return value.map(storable);
  if (typeof value === "object" && value !== null) {
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [pgText(k), storable(v)]));
  }
  return value;
}
