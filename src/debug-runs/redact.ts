/**
 * What a debug run must never keep (docs/debug-runs.md): credentials in headers (any name that
 * says key, token, secret, auth, cookie or signature), in URL query parameters and in body fields
 * named like one, and every known secret value (the provider's API key, the chat's MCP
 * credentials) wherever it appears, even inside text. Pure.
 */

export const REDACTED = "[REDACTED]";

/** Header and query parameter names whose value is a credential. */
const SECRET_NAME = /(auth|key|token|secret|cookie|password|signature|session|credential)/i;
/** Body fields whose value is a credential; `max_tokens` and the like are not. */
const SECRET_FIELD =
  /^(api[-_]?key|x-api-key|authorization|password|secret|client[-_]secret|access[-_]token|refresh[-_]token|token|bearer[-_]token|session[-_]token)$/i;

/** Shorter values are not treated as secrets: replacing them would mangle ordinary text. */
const MIN_SECRET_LENGTH = 8;

export class Redactor {
  readonly #secrets: string[];

  constructor(secrets: Iterable<string | null | undefined>) {
    const kept = new Set<string>();
    for (const secret of secrets) if (secret && secret.length >= MIN_SECRET_LENGTH) kept.add(secret);
    // Longest first: a secret that contains another is replaced whole.
    this.#secrets = [...kept].sort((a, b) => b.length - a.length);
  }

  /** `text` with every known secret replaced. */
  text(text: string): string {
    let out = text;
    for (const secret of this.#secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  }

  headers(headers: Iterable<[string, string]>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of headers) out[name.toLowerCase()] = SECRET_NAME.test(name) ? REDACTED : this.text(value);
    return out;
  }

  url(raw: string): string {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return this.text(raw);
    }
    if (url.username || url.password) {
      url.username = url.username ? "redacted" : "";
      url.password = "";
    }
    for (const name of [...url.searchParams.keys()]) if (SECRET_NAME.test(name)) url.searchParams.set(name, REDACTED);
    return this.text(url.toString());
  }

  /** A JSON value with credential fields and known secrets replaced (a copy). */
  json(value: unknown): unknown {
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.json(item));
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) out[key] = SECRET_FIELD.test(key) && item !== null ? REDACTED : this.json(item);
      return out;
    }
    return value;
  }
}
