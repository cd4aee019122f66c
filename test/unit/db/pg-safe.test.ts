import { describe, expect, it } from "vitest";
import { pgJson, pgText } from "../../../src/db/pg-safe";

describe("pgText / pgJson", () => {
  it("replace NUL with U+FFFD and leave everything else alone", () => {
    expect(pgText("a\u0000b\u0000")).toBe("a\uFFFDb\uFFFD");
    expect(pgText("clean")).toBe("clean");
    expect(pgText(null)).toBeNull();
  });

  it("replace lone surrogates and keep pairs", () => {
    expect(pgText("a\uD800b\uDC00😀")).toBe("a\uFFFDb\uFFFD😀");
    expect(JSON.parse(pgJson({ t: "x\uDBFF" }))).toEqual({ t: "x\uFFFD" });
  });

  it("pgJson cleans strings and keys at any depth, and keeps a literal backslash-u0000 text as it is", () => {
    const value = [{ type: "text", text: "x\u0000y", args: { "k\u0000": ["\u0000"], literal: "\\u0000" } }];
    const json = pgJson(value);
    expect(JSON.parse(json)).toEqual([{ type: "text", text: "x\uFFFDy", args: { "k\uFFFD": ["\uFFFD"], literal: "\\u0000" } }]);
    expect(pgJson({ a: "clean", d: new Date(0) })).toBe(JSON.stringify({ a: "clean", d: new Date(0) }));
  });
});
