import { describe, expect, it } from "vitest";
import { inlineParameters } from "../../../src/db/inline-parameters";

const ID = "3f2b8c1e-9d4a-4b7e-8a61-0c5d2e7f9b13";

describe("inlineParameters", () => {
  it("writes ids, words, integers, booleans, null and arrays of words as untyped literals", () => {
    expect(
      inlineParameters("UPDATE chats SET v = v -$2 WHERE id = $1 AND a = $3 AND b IS $4 AND s = ANY($5::text[]) AND t = $6", [
        ID,
        -1,
        true,
        null,
        ["running", "pending"],
        "5000ms",
      ]),
    ).toBe(
      `UPDATE chats SET v = v -'-1' WHERE id = '${ID}' AND a = 'true' AND b IS NULL AND s = ANY('{running,pending}'::text[]) AND t = '5000ms'`,
    );
    expect(inlineParameters("SELECT $1::text[]", [[]])).toBe("SELECT '{}'::text[]");
  });

  it("reads multi-digit parameter numbers whole", () => {
    const values = Array.from({ length: 11 }, (_, i) => i + 1);
    expect(inlineParameters("SELECT $1, $10, $11", values)).toBe("SELECT '1', '10', '11'");
  });

  it("refuses a statement with a comment: inlined text could end the comment and run", () => {
    const hostile = "x\nDELETE FROM chats; --";
    expect(inlineParameters("SELECT 1 -- $1\nFROM chats WHERE id = $2", [hostile, ID])).toBeUndefined();
    expect(inlineParameters("SELECT /* $1 */ $2", [hostile, ID])).toBeUndefined();
    // The same statement without its comment is inlined as before.
    expect(inlineParameters("SELECT $1", [hostile])).toBe("SELECT E'x\nDELETE FROM chats; --'");
  });

  it("leaves $n inside a quoted string alone", () => {
    expect(inlineParameters("SELECT '$1 and ''$2''', $1", [7])).toBe("SELECT '$1 and ''$2''', '7'");
  });

  it("writes free text as an escape string with quotes and backslashes doubled, dates in UTC and fractions as they print", () => {
    expect(inlineParameters("SELECT $1, $2, $3, $4", ["it's", "a\\b", "", "$1 'x'"])).toBe("SELECT E'it''s', E'a\\\\b', E'', E'$1 ''x'''");
    expect(inlineParameters("SELECT $1", [`${ID}'; DROP TABLE chats; --`])).toBe(`SELECT E'${ID}''; DROP TABLE chats; --'`);
    expect(inlineParameters("SELECT $1::timestamptz, $2", [new Date(Date.UTC(2026, 11, 1, 17, 0, 0, 5)), 1.5])).toBe(
      "SELECT '2026-12-01T17:00:00.005Z'::timestamptz, '1.5'",
    );
  });

  it.each([
    ["text holding NUL", ["a\u0000b"]],
    ["an array with a comma or brace inside an element", [["a,b"]]],
    ["an array holding the word null", [["x", "NULL"]]],
    ["an array of numbers", [[1, 2]]],
    ["an invalid date", [new Date(Number.NaN)]],
    ["an infinite number", [Number.POSITIVE_INFINITY]],
    ["an object", [{ a: 1 }]],
    ["a buffer", [new Uint8Array([1])]],
  ])("refuses %s", (_kind, values) => {
    expect(inlineParameters("SELECT $1", values)).toBeUndefined();
  });

  it("refuses a parameter it was not given, dollar quoting, quoted identifiers and an open quote", () => {
    expect(inlineParameters("SELECT $2", [1])).toBeUndefined();
    expect(inlineParameters("SELECT $$ $1 $$", [1])).toBeUndefined();
    expect(inlineParameters('SELECT "x" FROM t WHERE id = $1', [ID])).toBeUndefined();
    expect(inlineParameters("SELECT 'open $1", [1])).toBeUndefined();
  });
});
