import { describe, expect, it } from "vitest";
import { NUL_DETAIL, nulCharacterFields } from "../../../src/http/validation";

describe("nulCharacterFields", () => {
  it("finds U+0000 in strings at any depth, keys included, by path", () => {
    const body = {
      content: [
        { type: "text", text: "a\u0000b" },
        { type: "text", text: "fine" },
      ],
      labels: { "k\u0000": "v", ok: "x\u0000" },
      nested: { deep: [[{ s: "\u0000" }]] },
    };
    expect(nulCharacterFields(body)).toEqual([
      { field: "content.0.text", detail: NUL_DETAIL },
      { field: "labels.k\\u0000", detail: NUL_DETAIL },
      { field: "labels.ok", detail: NUL_DETAIL },
      { field: "nested.deep.0.0.s", detail: NUL_DETAIL },
    ]);
  });

  it("finds nothing in clean input, other control characters and non-strings included", () => {
    expect(nulCharacterFields({ a: "tab\tnew\nline\u0001", n: 0, b: false, z: null, list: [1, "x"] })).toEqual([]);
    expect(nulCharacterFields(undefined)).toEqual([]);
  });

  it("names the body itself for a bare string, and stops after ten findings", () => {
    expect(nulCharacterFields("\u0000")).toEqual([{ field: "(body)", detail: NUL_DETAIL }]);
    expect(nulCharacterFields(Array.from({ length: 50 }, () => "\u0000"))).toHaveLength(10);
  });
});
