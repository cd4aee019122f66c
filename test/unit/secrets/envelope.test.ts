import { describe, expect, it } from "vitest";
import { open, seal } from "../../../src/secrets/envelope";
import { SecretsError, SecretUnreadableError, UnknownSecretKeyError } from "../../../src/secrets/errors";
import { KeyRing } from "../../../src/secrets/key-ring";

const key = (fill: number) => Buffer.alloc(32, fill).toString("base64");
const ring = KeyRing.parse(`k1:${key(1)}`);
const aad = (text: string) => new TextEncoder().encode(text);
const WHERE = "t.c of row r";

/** Flips one bit of the base64 field `index` (1: IV, 2: ciphertext) of an envelope. */
function flip(envelope: string, index: number): string {
  const fields = envelope.split(":");
  const bytes = Buffer.from(fields[index]!, "base64");
  bytes[bytes.length - 1]! ^= 1;
  fields[index] = bytes.toString("base64");
  return fields.join(":");
}

async function failure(promise: Promise<unknown>): Promise<SecretsError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SecretsError);
  return err as SecretsError;
}

describe("sealing a secret (AES-256-GCM)", () => {
  it("opens what it sealed, with a fresh IV each time and no plaintext in the envelope", async () => {
    const a = await seal(ring, "sk-live-0123456789", aad("row-1"), WHERE);
    const b = await seal(ring, "sk-live-0123456789", aad("row-1"), WHERE);
    expect(a.keyId).toBe("k1");
    expect(a.envelope).toMatch(/^v1:[A-Za-z0-9+/]{16}:[A-Za-z0-9+/=]+$/);
    expect(a.envelope).not.toBe(b.envelope);
    expect(a.envelope.split(":")[1]).not.toBe(b.envelope.split(":")[1]);
    expect(a.envelope).not.toContain("sk-live");
    expect(await open(ring, a, aad("row-1"), WHERE)).toBe("sk-live-0123456789");
    expect(await open(ring, await seal(ring, "", aad("x"), WHERE), aad("x"), WHERE)).toBe("");
    expect(await open(ring, await seal(ring, "ünïcødé ✓", aad("x"), WHERE), aad("x"), WHERE)).toBe("ünïcødé ✓");
  });

  it("refuses another key under the same id, an altered IV or ciphertext, and other additional data", async () => {
    const sealed = await seal(ring, "secret", aad("row-1"), WHERE);
    const impostor = KeyRing.parse(`k1:${key(2)}`);
    const cases = [
      () => open(impostor, sealed, aad("row-1"), WHERE),
      () => open(ring, { ...sealed, envelope: flip(sealed.envelope, 1) }, aad("row-1"), WHERE),
      () => open(ring, { ...sealed, envelope: flip(sealed.envelope, 2) }, aad("row-1"), WHERE),
      () => open(ring, sealed, aad("row-2"), WHERE),
      () => open(ring, { ...sealed, envelope: sealed.envelope.replace(/^v1/, "v2") }, aad("row-1"), WHERE),
      () => open(ring, { ...sealed, envelope: "secret" }, aad("row-1"), WHERE),
      () => open(ring, { ...sealed, envelope: `${sealed.envelope}:extra` }, aad("row-1"), WHERE),
      () => open(ring, { ...sealed, envelope: "v1:AAAA:AAAA" }, aad("row-1"), WHERE),
    ];
    for (const attempt of cases) {
      const err = await failure(attempt());
      expect(err).toBeInstanceOf(SecretUnreadableError);
      expect(err.code).toBe("secret_unreadable");
      expect(err.message).toBe("t.c of row r cannot be opened: it is malformed, was altered, or belongs to another row");
    }
  });

  it("refuses a key id the ring does not hold, naming it", async () => {
    const sealed = await seal(KeyRing.parse(`old:${key(3)}`), "secret", aad("r"), WHERE);
    const err = await failure(open(ring, sealed, aad("r"), WHERE));
    expect(err).toBeInstanceOf(UnknownSecretKeyError);
    expect(err.code).toBe("unknown_secret_key");
    expect(err.message).toBe('t.c of row r is sealed with key "old", which CHAT_SECRETS_KEYS does not hold');
  });

  it("opens with an older key kept in the ring while new writes use the first", async () => {
    const old = KeyRing.parse(`old:${key(3)}`);
    const sealed = await seal(old, "secret", aad("r"), WHERE);
    const rotated = KeyRing.parse(`new:${key(4)},old:${key(3)}`);
    expect(await open(rotated, sealed, aad("r"), WHERE)).toBe("secret");
    expect((await seal(rotated, "secret", aad("r"), WHERE)).keyId).toBe("new");
  });
});
