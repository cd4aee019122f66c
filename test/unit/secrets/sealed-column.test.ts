import { describe, expect, it } from "vitest";
import { SecretUnreadableError } from "../../../src/secrets/errors";
import { KeyRing } from "../../../src/secrets/key-ring";
import { openMap, openText, type SealedColumn, sealMap, sealText } from "../../../src/secrets/sealed-column";

const ring = KeyRing.parse(`k1:${Buffer.alloc(32, 1).toString("base64")}`);
const TOKEN: SealedColumn = { table: "things", column: "token", keyColumn: "token_sealed_with", shape: "text", tenantColumn: "org_id" };
const OTHER: SealedColumn = { ...TOKEN, column: "other_token", keyColumn: "other_token_sealed_with" };
const HEADERS: SealedColumn = {
  table: "things",
  column: "headers",
  keyColumn: "headers_sealed_with",
  shape: "map",
  tenantColumn: "org_id",
};
const row = { id: "11111111-1111-4111-8111-111111111111", tenant: "org-a" };

async function unreadable(promise: Promise<unknown>): Promise<void> {
  await expect(promise).rejects.toBeInstanceOf(SecretUnreadableError);
}

describe("sealed columns: a value bound to its row, column and tenant", () => {
  it("seals and opens a text value; null stays null; a value without a key id is legacy plaintext", async () => {
    const stored = await sealText(ring, TOKEN, row, "tok-123");
    expect(stored.keyId).toBe("k1");
    expect(stored.value).not.toContain("tok-123");
    expect(await openText(ring, TOKEN, row, stored)).toBe("tok-123");
    expect(await sealText(ring, TOKEN, row, null)).toEqual({ value: null, keyId: null });
    expect(await openText(ring, TOKEN, row, { value: null, keyId: null })).toBeNull();
    expect(await openText(ring, TOKEN, row, { value: "legacy-plain", keyId: null })).toBe("legacy-plain");
  });

  it("refuses a value moved to another row, tenant or column", async () => {
    const stored = await sealText(ring, TOKEN, row, "tok-123");
    await unreadable(openText(ring, TOKEN, { ...row, id: "22222222-2222-4222-8222-222222222222" }, stored));
    await unreadable(openText(ring, TOKEN, { ...row, tenant: "org-b" }, stored));
    await unreadable(openText(ring, TOKEN, { ...row, tenant: null }, stored));
    await unreadable(openText(ring, OTHER, row, stored));
  });

  it("seals each value of a map under its name, leaves the names readable, and refuses swapped values", async () => {
    const stored = await sealMap(ring, HEADERS, row, { "X-Api-Key": "key-value", "X-Other": "other-value" });
    expect(Object.keys(stored.value)).toEqual(["X-Api-Key", "X-Other"]);
    expect(JSON.stringify(stored.value)).not.toMatch(/key-value|other-value/);
    expect(stored.keyId).toBe("k1");
    expect(await openMap(ring, HEADERS, row, stored)).toEqual({ "X-Api-Key": "key-value", "X-Other": "other-value" });
    const swapped = { "X-Api-Key": stored.value["X-Other"]!, "X-Other": stored.value["X-Api-Key"]! };
    await unreadable(openMap(ring, HEADERS, row, { ...stored, value: swapped }));
    await unreadable(openMap(ring, HEADERS, { ...row, tenant: "org-b" }, stored));
    expect(await sealMap(ring, HEADERS, row, {})).toEqual({ value: {}, keyId: null });
    expect(await openMap(ring, HEADERS, row, { value: { A: "plain" }, keyId: null })).toEqual({ A: "plain" });
  });
});
