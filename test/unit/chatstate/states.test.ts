import { describe, it, expect } from "vitest";
import { CLASSIFIED_STATES, EXECUTION_STATES, RUNNABLE_STATES, hasQueue, isArchived, isRunnable, statusOf } from "../../../src/chatstate";

describe("execution states", () => {
  it("are the spec's 13 states once N is counted, plus Invalid", () => {
    expect(EXECUTION_STATES).toHaveLength(12);
    expect(CLASSIFIED_STATES).toEqual(["N", ...EXECUTION_STATES, "Invalid"]);
  });

  it("read status, queue and archived off the shorthand", () => {
    const described = EXECUTION_STATES.map((s) => `${s}:${statusOf(s)}:${hasQueue(s) ? 1 : 0}:${isArchived(s) ? "x" : "-"}`);
    expect(described).toEqual([
      "W:waiting:0:-",
      "E0:error:0:-",
      "E1:error:1:-",
      "R0:running:0:-",
      "R1:running:1:-",
      "I0:interrupting:0:-",
      "I1:interrupting:1:-",
      "A0:requires_action:0:-",
      "A1:requires_action:1:-",
      "XW:waiting:0:x",
      "XE0:error:0:x",
      "XE1:error:1:x",
    ]);
  });

  it("are runnable exactly in R0, R1, I0, I1, A0, A1", () => {
    expect([...RUNNABLE_STATES]).toEqual(["R0", "R1", "I0", "I1", "A0", "A1"]);
    expect(CLASSIFIED_STATES.filter(isRunnable)).toEqual(["R0", "R1", "I0", "I1", "A0", "A1"]);
  });
});
