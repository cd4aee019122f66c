/**
 * Sealing one secret: AES-256-GCM through WebCrypto with a fresh random 96-bit IV per value and the
 * caller's additional authenticated data (the value's row and column, sealed-column.ts). The
 * stored envelope is `v1:<base64 IV>:<base64 ciphertext and 128-bit tag>`; the key id is stored
 * beside it, in a column of its own, so a reader knows which key opens it.
 */
import { fromBase64, toBase64 } from "./base64";
import { SecretUnreadableError } from "./errors";
import type { KeyRing } from "./key-ring";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SealedValue {
  envelope: string;
  keyId: string;
}

/** Seals `plaintext` with the ring's current key. */
export async function seal(ring: KeyRing, plaintext: string, aad: Uint8Array<ArrayBuffer>, where: string): Promise<SealedValue> {
  const keyId = ring.currentId;
  const key = await ring.cryptoKey(keyId, where);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const ciphertext = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: aad }, key, new TextEncoder().encode(plaintext));
  return { envelope: `${VERSION}:${toBase64(iv)}:${toBase64(new Uint8Array(ciphertext))}`, keyId };
}

/**
 * The plaintext of `sealed`. UnknownSecretKeyError when the ring lacks its key; SecretUnreadableError
 * when it is malformed, altered, or opened with other additional data than it was sealed with.
 */
export async function open(ring: KeyRing, sealed: SealedValue, aad: Uint8Array<ArrayBuffer>, where: string): Promise<string> {
  const key = await ring.cryptoKey(sealed.keyId, where);
  const [version, ivText, ciphertextText, ...rest] = sealed.envelope.split(":");
  const iv = ivText === undefined ? undefined : fromBase64(ivText);
  const ciphertext = ciphertextText === undefined ? undefined : fromBase64(ciphertextText);
  if (version !== VERSION || rest.length > 0 || iv?.length !== IV_BYTES || !ciphertext || ciphertext.length < TAG_BYTES) {
    throw new SecretUnreadableError(where);
  }
  let plaintext: ArrayBuffer;
  try {
    plaintext = await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: aad }, key, ciphertext);
  } catch {
    throw new SecretUnreadableError(where);
  }
  return new TextDecoder().decode(plaintext);
}
