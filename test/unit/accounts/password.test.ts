import { describe, expect, it } from "vitest";
import { hashPassword, PBKDF2_ITERATIONS, verifyPassword } from "../../../src/accounts/password";

describe("password hashing (PBKDF2-SHA256)", () => {
  it("verifies the password it hashed and refuses others", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(await verifyPassword("correct horse battery staple", stored)).toBe(true);
    expect(await verifyPassword("correct horse battery stapl", stored)).toBe(false);
    expect(await verifyPassword("", stored)).toBe(false);
  });

  it("stores algorithm, cost and a random salt, never the password", async () => {
    const a = await hashPassword("hunter22");
    const b = await hashPassword("hunter22");
    expect(a).toMatch(new RegExp(`^pbkdf2-sha256\\$${PBKDF2_ITERATIONS}\\$[\\w-]+\\$[\\w-]{43}$`));
    expect(a).not.toBe(b);
    expect(a).not.toContain("hunter22");
  });

  it("verifies hashes of a lower cost, so the cost can change later", async () => {
    const stored = await hashPassword("pw-at-low-cost", 1000);
    expect(stored.split("$")[1]).toBe("1000");
    expect(await verifyPassword("pw-at-low-cost", stored)).toBe(true);
  });

  it.each([
    ["another algorithm", "scrypt$1$abc$def"],
    ["missing parts", "pbkdf2-sha256$100000$abc"],
    ["cost above the ceiling", "pbkdf2-sha256$100001$YWJj$ZGVm"],
    ["non-numeric cost", "pbkdf2-sha256$lots$YWJj$ZGVm"],
    ["empty", ""],
  ])("refuses a stored value that is not one of ours (%s)", async (_name, stored) => {
    expect(await verifyPassword("anything", stored)).toBe(false);
  });
});
