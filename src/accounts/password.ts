/**
 * Password hashes with WebCrypto PBKDF2-SHA256 (workerd has no scrypt). Stored as
 * `pbkdf2-sha256$<iterations>$<salt>$<hash>` (base64url), so the cost can rise later and old
 * hashes still verify.
 */
import { base64Url, constantTimeEqual } from "./token";

const ALGORITHM = "pbkdf2-sha256";
/** workerd refuses PBKDF2 above 100,000 iterations, so this is the ceiling there, and the default of CHAT_PASSWORD_HASH_ITERATIONS. */
export const PBKDF2_ITERATIONS = 100_000;
/** The floor CHAT_PASSWORD_HASH_ITERATIONS accepts. */
export const MIN_PBKDF2_ITERATIONS = 10_000;
const SALT_BYTES = 16;
const HASH_BITS = 256;

export async function hashPassword(password: string, iterations = PBKDF2_ITERATIONS): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, salt, iterations);
  return [ALGORITHM, String(iterations), base64Url(salt), base64Url(hash)].join("$");
}

/** The iterations a stored hash was made with (null: not one of ours): a sign-in rehashes when they are not the configured ones. */
export function iterationsOf(stored: string): number | null {
  const [algorithm, iterationsText] = stored.split("$");
  const iterations = Number(iterationsText);
  return algorithm === ALGORITHM && Number.isInteger(iterations) ? iterations : null;
}

/** False for a wrong password and for a stored value that is not one of our hashes. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [algorithm, iterationsText, saltText, hashText] = stored.split("$");
  if (algorithm !== ALGORITHM || !iterationsText || !saltText || !hashText) return false;
  const iterations = Number(iterationsText);
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > PBKDF2_ITERATIONS) return false;
  const hash = await derive(password, fromBase64Url(saltText), iterations);
  return constantTimeEqual(base64Url(hash), hashText);
}

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, HASH_BITS);
  return new Uint8Array(bits);
}

function fromBase64Url(text: string): Uint8Array {
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (ch) => ch.charCodeAt(0));
}
