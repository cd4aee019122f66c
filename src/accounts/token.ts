/**
 * API tokens: `<id>-<secret>`. The id is the api_keys primary key (public, 10 alphanumerics, so
 * the first "-" always splits the two); the secret is random url-safe text of which only the
 * SHA-256 is stored. WebCrypto only, so the Worker and Node (the dev seed) share this code.
 */

const ID_LENGTH = 10;
const ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 24 random bytes: 32 base64url characters, 192 bits. */
const SECRET_BYTES = 24;
const MIN_SECRET_LENGTH = 22;
/** Longer input is not a token of ours; refusing it early bounds the work an attacker can cause. */
const MAX_SECRET_LENGTH = 128;

const ID_PATTERN = new RegExp(`^[0-9A-Za-z]{${ID_LENGTH}}$`);
const SECRET_PATTERN = new RegExp(`^[0-9A-Za-z_-]{${MIN_SECRET_LENGTH},${MAX_SECRET_LENGTH}}$`);

export interface MintedToken {
  id: string;
  secret: string;
  /** What the client presents: `<id>-<secret>`. */
  token: string;
  /** SHA-256 of the secret, lowercase hex: the only part stored. */
  hashedSecret: string;
}

/** A fresh token; the caller stores `id` and `hashedSecret` and hands `token` out once. */
export async function mintToken(): Promise<MintedToken> {
  const id = randomId();
  const secret = base64Url(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
  return { id, secret, token: `${id}-${secret}`, hashedSecret: await hashSecret(secret) };
}

/** An api_keys id: 10 characters drawn uniformly (rejection sampling, no modulo bias). */
export function randomId(): string {
  let out = "";
  const limit = 256 - (256 % ID_ALPHABET.length);
  while (out.length < ID_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(ID_LENGTH * 2))) {
      if (byte < limit && out.length < ID_LENGTH) out += ID_ALPHABET[byte % ID_ALPHABET.length];
    }
  }
  return out;
}

/** Splits a presented token; null when it cannot be one of ours (nothing to look up). */
export function parseToken(token: string): { id: string; secret: string } | null {
  const dash = token.indexOf("-");
  if (dash < 0) return null;
  const id = token.slice(0, dash);
  const secret = token.slice(dash + 1);
  if (!ID_PATTERN.test(id) || !SECRET_PATTERN.test(secret)) return null;
  return { id, secret };
}

export async function hashSecret(secret: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret));
  return toHex(new Uint8Array(digest));
}

/** Whether `secret` hashes to `hashedSecret`, compared in constant time. */
export async function verifySecret(secret: string, hashedSecret: string): Promise<boolean> {
  return constantTimeEqual(await hashSecret(secret), hashedSecret);
}

/** Equal strings, in time independent of where they first differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < x.length; i++) diff |= (x[i] ?? 0) ^ (y[i % Math.max(y.length, 1)] ?? 0);
  return diff === 0;
}

export function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
