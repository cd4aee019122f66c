/**
 * The keys secrets are sealed with (docs/hardening.md), from CHAT_SECRETS_KEYS: comma-separated
 * `kid:base64key` entries, each key 32 bytes (AES-256). The first is the current key, which every
 * new write uses; the others are kept only to open what was sealed before a rotation. The raw
 * bytes stay private to this object: printing or serializing a ring shows its key ids alone.
 */
import { fromBase64 } from "./base64";
import { InvalidSecretKeysError, UnknownSecretKeyError } from "./errors";

const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
/** WebCrypto's key type, named the same way under workerd's and Node's type declarations. */
type AesKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

const HOW = "comma-separated kid:base64key entries, the first the key new writes use (a key: `openssl rand -base64 32`)";

export class KeyRing {
  readonly #raw: ReadonlyMap<string, Uint8Array<ArrayBuffer>>;
  readonly #imported = new Map<string, Promise<AesKey>>();

  /** The key new writes are sealed with. */
  readonly currentId: string;
  /** Every key id held, the current one first. */
  readonly ids: readonly string[];

  private constructor(entries: readonly (readonly [string, Uint8Array<ArrayBuffer>])[]) {
    this.#raw = new Map(entries);
    this.ids = entries.map(([id]) => id);
    this.currentId = this.ids[0]!;
  }

  /** Throws InvalidSecretKeysError listing every problem; its messages never contain key material. */
  static parse(text: string): KeyRing {
    const entries = text
      .split(",")
      .map((e) => e.trim())
      .filter((e) => e !== "");
    if (entries.length === 0) throw new InvalidSecretKeysError([`CHAT_SECRETS_KEYS is required: ${HOW}`]);
    const problems: string[] = [];
    const parsed: [string, Uint8Array<ArrayBuffer>][] = [];
    for (const [i, entry] of entries.entries()) {
      const colon = entry.indexOf(":");
      const id = colon < 0 ? "" : entry.slice(0, colon);
      if (!KEY_ID.test(id)) {
        problems.push(`CHAT_SECRETS_KEYS entry ${i + 1} must be kid:base64key, the kid 1-32 letters, digits, _ or -`);
        continue;
      }
      const key = fromBase64(entry.slice(colon + 1));
      if (key?.length !== KEY_BYTES) {
        problems.push(`CHAT_SECRETS_KEYS key "${id}" must be ${KEY_BYTES} bytes in base64 (${HOW})`);
        continue;
      }
      if (parsed.some(([seen]) => seen === id)) {
        problems.push(`CHAT_SECRETS_KEYS names key "${id}" twice`);
        continue;
      }
      parsed.push([id, key]);
    }
    if (problems.length > 0) throw new InvalidSecretKeysError(problems);
    return new KeyRing(parsed);
  }

  has(id: string): boolean {
    return this.#raw.has(id);
  }

  /** The AES-GCM key `id`, imported once (not extractable). `where` names the value for the error. */
  cryptoKey(id: string, where: string): Promise<AesKey> {
    const raw = this.#raw.get(id);
    if (!raw) return Promise.reject(new UnknownSecretKeyError(id, where));
    let key = this.#imported.get(id);
    if (!key) {
      key = crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
      this.#imported.set(id, key);
    }
    return key;
  }

  toJSON(): { current: string; ids: readonly string[] } {
    return { current: this.currentId, ids: this.ids };
  }
}
