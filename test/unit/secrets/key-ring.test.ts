import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { InvalidSecretKeysError } from "../../../src/secrets/errors";
import { KeyRing } from "../../../src/secrets/key-ring";

const key = (fill: number) => Buffer.alloc(32, fill).toString("base64");

function problemsOf(text: string): readonly string[] {
  try {
    KeyRing.parse(text);
  } catch (err) {
    if (err instanceof InvalidSecretKeysError) return err.problems;
    throw err;
  }
  throw new Error("parsed");
}

describe("the key ring (CHAT_SECRETS_KEYS)", () => {
  it("reads kid:base64key entries, the first being the current key", () => {
    const ring = KeyRing.parse(` k2:${key(2)} , k1:${key(1)}`);
    expect(ring.currentId).toBe("k2");
    expect(ring.ids).toEqual(["k2", "k1"]);
    expect(ring.has("k1")).toBe(true);
    expect(ring.has("k0")).toBe(false);
    // URL-safe base64 without padding is a key too.
    expect(KeyRing.parse(`u:${Buffer.alloc(32, 0xfb).toString("base64url")}`).currentId).toBe("u");
  });

  it("refuses a missing, malformed, short or repeated key with a message that holds no key material", () => {
    expect(problemsOf("")).toEqual([expect.stringMatching(/^CHAT_SECRETS_KEYS is required: comma-separated kid:base64key/)]);
    expect(problemsOf(" , ")).toHaveLength(1);
    const short = Buffer.alloc(16, 7).toString("base64");
    const problems = problemsOf(`a:${key(1)},b:${short},a:${key(3)},${key(4)},bad id:${key(5)}`);
    expect(problems).toEqual([
      expect.stringContaining('key "b" must be 32 bytes in base64'),
      'CHAT_SECRETS_KEYS names key "a" twice',
      expect.stringContaining("entry 4 must be kid:base64key"),
      expect.stringContaining("entry 5 must be kid:base64key"),
    ]);
    for (const secret of [key(1), short, key(3), key(4), key(5)]) expect(problems.join("\n")).not.toContain(secret);
    expect(problemsOf("a:not base64!")).toEqual([expect.stringContaining('key "a" must be 32 bytes')]);
  });

  it("shows its key ids only, never the keys, when printed or serialized", () => {
    const secret = key(9);
    const ring = KeyRing.parse(`k:${secret}`);
    expect(JSON.stringify({ ring })).toBe('{"ring":{"current":"k","ids":["k"]}}');
    const bytes = Buffer.alloc(32, 9);
    for (const text of [inspect(ring, { depth: 5, showHidden: true }), String(ring), JSON.stringify(ring)]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(bytes.toString("hex"));
      expect(text).not.toContain("9, 9, 9");
    }
  });
});
