/** resolveInserted: a transition's references to its rows, as the store resolves them after COMMIT. */
import { describe, expect, it } from "vitest";
import { StoreInvariantError } from "../../../src/chats/errors";
import { InsertedRange, InsertedRow, resolveInserted } from "../../../src/chats/inserted-refs";
import type { ChatMessageRow } from "../../../src/db/schema/chats";

const rows = [11, 12, 13, 14].map((id) => ({ id }) as unknown as ChatMessageRow);

describe("resolveInserted", () => {
  it("puts the rows in the places named, through plain objects and arrays", () => {
    const value = {
      sent: { message: new InsertedRow(2), messages: new InsertedRange(1, 3), queued: false },
      context: [{ rows: new InsertedRange(3, 4) }],
      none: new InsertedRange(4, 4),
    };
    expect(resolveInserted(value, rows, "chat")).toEqual({
      sent: { message: rows[2], messages: [rows[1], rows[2]], queued: false },
      context: [{ rows: [rows[3]] }],
      none: [],
    });
    // The transition's value itself is left as it was: plain data, still the references.
    expect(value.sent.message).toBeInstanceOf(InsertedRow);
  });

  it("returns a value that holds no reference as it is, and leaves class instances and dates alone", () => {
    const at = new Date(0);
    const plain = { at, list: [1, 2], nested: { ok: true } };
    expect(resolveInserted(plain, rows, "chat")).toBe(plain);
    const map = new Map([["row", new InsertedRow(0)]]);
    expect(resolveInserted({ map }, rows, "chat").map).toBe(map);
    expect(resolveInserted(null, rows, "chat")).toBeNull();
  });

  it("refuses a place the transaction never filled", () => {
    expect(() => resolveInserted({ message: new InsertedRow(4) }, rows, "chat")).toThrow(StoreInvariantError);
    expect(() => resolveInserted(new InsertedRange(2, 5), rows, "chat")).toThrow(StoreInvariantError);
  });
});
