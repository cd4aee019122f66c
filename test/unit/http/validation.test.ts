import { describe, expect, it } from "vitest";
import { NUL_DETAIL, SURROGATE_DETAIL, unstorableTextFields } from "../../../src/http/validation";

describe("unstorableTextFields", () => {
  it("finds lone surrogates, high or low, but accepts pairs (emoji)", () => {
    expect(unstorableTextFields({ a: "x\uD800", b: "\uDC00y", c: "😀", d: "\uD83D\uDE00" })).toEqual([
      { field: "a", detail: SURROGATE_DETAIL },
      { field: "b", detail: SURROGATE_DETAIL },
    ]);
  });

  it("finds U+0000 in strings at any depth, keys included, by path", () => {
    const body = {
      content: [
        { type: "text", text: "a\u0000b" },
        { type: "text", text: "fine" },
      ],
      labels: { "k\u0000": "v", ok: "x\u0000" },
      nested: { deep: [[{ s: "\u0000" }]] },
    };
    expect(unstorableTextFields(body)).toEqual([
      { field: "content.0.text", detail: NUL_DETAIL },
      { field: "labels.k\\u0000", detail: NUL_DETAIL },
      { field: "labels.ok", detail: NUL_DETAIL },
      { field: "nested.deep.0.0.s", detail: NUL_DETAIL },
    ]);
  });

  it("finds nothing in clean input, other control characters and non-strings included", () => {
    expect(unstorableTextFields({ a: "tab\tnew\nline\u0001", n: 0, b: false, z: null, list: [1, "x"] })).toEqual([]);
    expect(unstorableTextFields(undefined)).toEqual([]);
  });

  it("names the body itself for a bare string, and stops after ten findings", () => {
    expect(unstorableTextFields("\u0000")).toEqual([{ field: "(body)", detail: NUL_DETAIL }]);
    expect(unstorableTextFields(Array.from({ length: 50 }, () => "\u0000"))).toHaveLength(10);
  });
});
