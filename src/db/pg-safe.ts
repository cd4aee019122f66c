/**
 * Postgres refuses U+0000 in text and jsonb. Requests are checked at the edge (a 400), but text
 * the service produces itself (model output, tool results, provider error messages) reaches the
 * database unchecked, and a refused INSERT would make the runner retry the same commit forever.
 * Such text is stored with U+FFFD (the replacement character) in place of each NUL.
 */

const REPLACEMENT = "\uFFFD";

/** `text` with every NUL replaced; the same string when it has none. */
export function pgText(text: string): string;
export function pgText(text: string | null): string | null;
export function pgText(text: string | null): string | null {
  return text === null || !text.includes("\u0000") ? text : text.replaceAll("\u0000", REPLACEMENT);
}

/** JSON text for a jsonb parameter, NULs replaced in every string and key. */
export function pgJson(value: unknown): string {
  const json = JSON.stringify(value);
  // JSON.stringify writes NUL as the escape \u0000 (a literal backslash-u only ever appears as \\u).
  return json.includes("\\u0000") ? JSON.stringify(withoutNul(value)) : json;
}

function withoutNul(value: unknown): unknown {
  if (typeof value === "string") return pgText(value);
  if (Array.isArray(value)) return value.map(withoutNul);
  if (typeof value === "object" && value !== null) {
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [pgText(k), withoutNul(v)]));
  }
  return value;
}
