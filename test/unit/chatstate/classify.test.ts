import { describe, it, expect } from "vitest";
import { CHAT_STATUSES, ChatNotFoundError, InvalidStateError, classify, classifyForTransition } from "../../../src/chatstate";
import type { ChatStatus, ClassifiedState } from "../../../src/chatstate";

// The spec's "Execution states" table, read as (status, archived, queued) -> state. Every combination
// not listed here is Invalid.
const VALID: Record<string, ClassifiedState> = {
  "waiting|false|empty": "W",
  "error|false|empty": "E0",
  "error|false|queued": "E1",
  "running|false|empty": "R0",
  "running|false|queued": "R1",
  "interrupting|false|empty": "I0",
  "interrupting|false|queued": "I1",
  "requires_action|false|empty": "A0",
  "requires_action|false|queued": "A1",
  "waiting|true|empty": "XW",
  "error|true|empty": "XE0",
  "error|true|queued": "XE1",
};

const INVALID_COMBINATIONS: readonly [ChatStatus, boolean, number][] = [
  ["waiting", false, 1],
  ["waiting", true, 2],
  ["running", true, 0],
  ["running", true, 1],
  ["interrupting", true, 0],
  ["interrupting", true, 1],
  ["requires_action", true, 0],
  ["requires_action", true, 3],
];

describe("classify", () => {
  const cells = CHAT_STATUSES.flatMap((status) =>
    [false, true].flatMap((archived) => [0, 1, 5].map((queueLength) => [status, archived, queueLength] as const)),
  );

  it.each(cells)("classifies status %s, archived %s, %i queued per the spec's table", (status, archived, queueLength) => {
    const expected = VALID[`${status}|${archived}|${queueLength > 0 ? "queued" : "empty"}`] ?? "Invalid";
    expect(classify({ status, archived }, queueLength)).toBe(expected);
  });

  it.each(INVALID_COMBINATIONS)("classifies status %s, archived %s, %i queued as Invalid", (status, archived, queueLength) => {
    expect(classify({ status, archived }, queueLength)).toBe("Invalid");
  });

  it("has no Invalid combination besides those listed", () => {
    const key = (status: string, archived: boolean, queueLength: number) => `${status}|${archived}|${queueLength > 0}`;
    const invalid = CHAT_STATUSES.flatMap((status) =>
      [false, true].flatMap((archived) =>
        [0, 1].filter((q) => classify({ status, archived }, q) === "Invalid").map((q) => key(status, archived, q)),
      ),
    );
    expect(new Set(invalid)).toEqual(new Set(INVALID_COMBINATIONS.map(([s, a, q]) => key(s, a, q))));
  });

  it("classifies a missing row as N", () => {
    expect(classify(null, 0)).toBe("N");
    expect(classify(undefined, 0)).toBe("N");
  });

  it("classifies a legacy status outside the state machine as Invalid", () => {
    expect(classify({ status: "paused", archived: false }, 0)).toBe("Invalid");
    expect(classify({ status: "completed", archived: true }, 0)).toBe("Invalid");
  });

  it("refuses a queue length that is not a count", () => {
    expect(() => classify({ status: "waiting", archived: false }, -1)).toThrow(RangeError);
    expect(() => classify({ status: "waiting", archived: false }, 1.5)).toThrow(RangeError);
  });
});

describe("classifyForTransition", () => {
  it("reports a missing chat as not found for anything but Create", () => {
    expect(() => classifyForTransition("SendMessage", "c1", null, 0)).toThrow(new ChatNotFoundError("c1"));
    expect(() => classifyForTransition("ReconcileInvalidState", "c1", undefined, 0)).toThrow(ChatNotFoundError);
    expect(classifyForTransition("Create", "c1", null, 0)).toBe("N");
  });

  it("refuses an invalid row for anything but ReconcileInvalidState, with the row's fields", () => {
    const row = { status: "running", archived: true };
    expect(() => classifyForTransition("EditMessage", "c2", row, 2)).toThrow(InvalidStateError);
    expect(() => classifyForTransition("EditMessage", "c2", row, 2)).toThrow(
      expect.objectContaining({ code: "invalid_state", chatId: "c2", status: "running", archived: true, queueLength: 2 }),
    );
    expect(classifyForTransition("ReconcileInvalidState", "c2", row, 2)).toBe("Invalid");
  });

  it("returns a valid state for any transition, leaving the allowed check to landing", () => {
    expect(classifyForTransition("Interrupt", "c3", { status: "waiting", archived: false }, 0)).toBe("W");
  });
});
