import { describe, expect, it } from "vitest";
import { constantTimeEqual, hashSecret, mintToken, parseToken, randomId, verifySecret } from "../../../src/accounts/token";

describe("API tokens", () => {
  it("mints <id>-<secret> with a 10-character alphanumeric id and a url-safe secret of 22+ characters", async () => {
    const minted = await mintToken();
    expect(minted.id).toMatch(/^[0-9A-Za-z]{10}$/);
    expect(minted.secret).toMatch(/^[0-9A-Za-z_-]{22,}$/);
    expect(minted.token).toBe(`${minted.id}-${minted.secret}`);
  });

  it("stores only the SHA-256 hex of the secret", async () => {
    const minted = await mintToken();
    expect(minted.hashedSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(minted.hashedSecret).toBe(await hashSecret(minted.secret));
    expect(minted.hashedSecret).not.toContain(minted.secret);
    // Known vector: SHA-256("abc").
    expect(await hashSecret("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("mints distinct tokens", async () => {
    const tokens = await Promise.all(Array.from({ length: 50 }, () => mintToken()));
    expect(new Set(tokens.map((t) => t.id)).size).toBe(50);
    expect(new Set(tokens.map((t) => t.secret)).size).toBe(50);
  });

  it("draws ids from the whole alphabet", () => {
    const seen = new Set(Array.from({ length: 400 }, () => randomId()).join(""));
    expect(seen.size).toBe(62);
  });

  it("parses its own tokens, splitting at the first dash even when the secret contains dashes", async () => {
    const minted = await mintToken();
    expect(parseToken(minted.token)).toEqual({ id: minted.id, secret: minted.secret });
    expect(parseToken("abcdefghij-abc-def_ghi-jkl-mno-pqr-stu")).toEqual({ id: "abcdefghij", secret: "abc-def_ghi-jkl-mno-pqr-stu" });
  });

  it.each([
    ["empty", ""],
    ["no dash", "abcdefghijabcdefghijabcdefghijabcdefghij"],
    ["short id", "abcdefghi-abcdefghijabcdefghijabcdef"],
    ["long id", "abcdefghijk-abcdefghijabcdefghijabcdef"],
    ["short secret", "abcdefghij-abcdefghijabcdefghij1"],
    ["bad characters", "abcdefghij-abcdefghijabcdefghij!abcdef"],
    ["id with underscore", "abcde_ghij-abcdefghijabcdefghijabcdef"],
    ["huge secret", `abcdefghij-${"a".repeat(129)}`],
  ])("rejects a malformed token (%s)", (_name, token) => {
    expect(parseToken(token)).toBeNull();
  });

  it("verifies the right secret and refuses any other", async () => {
    const minted = await mintToken();
    expect(await verifySecret(minted.secret, minted.hashedSecret)).toBe(true);
    expect(await verifySecret(`${minted.secret}x`, minted.hashedSecret)).toBe(false);
    expect(await verifySecret(minted.secret.slice(1), minted.hashedSecret)).toBe(false);
  });

  it("compares strings for equality regardless of length", () => {
    expect(constantTimeEqual("abc", "abc")).toBe(true);
    expect(constantTimeEqual("abc", "abd")).toBe(false);
    expect(constantTimeEqual("abc", "abcd")).toBe(false);
    expect(constantTimeEqual("", "")).toBe(true);
    expect(constantTimeEqual("", "a")).toBe(false);
  });
});
