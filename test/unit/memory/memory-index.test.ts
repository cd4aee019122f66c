import { describe, expect, it } from "vitest";
import { firstLine, INDEX_LINE_CHARS, MAX_INDEX_CHARS, renderMemoryIndex } from "../../../src/memory/memory-index";
import {
  capReachedMessage,
  isAtCap,
  isValidMemoryName,
  MAX_MEMORIES,
  needsPruneReminder,
  PRUNE_REMINDER_FROM,
} from "../../../src/memory/rules";

describe("renderMemoryIndex", () => {
  it("lists each memory by name with its first line, in the given order", () => {
    const text = renderMemoryIndex([
      { name: "build", content: "npm run check before committing\nthen push" },
      { name: "style", content: "\n  two spaces  \nmore" },
    ]);
    expect(text.split("\n")).toEqual([
      `Memories in this project (2 of at most ${MAX_MEMORIES}):`,
      "- build: npm run check before committing",
      "- style: two spaces",
    ]);
  });

  it("says when there is none", () => {
    expect(renderMemoryIndex([])).toMatch(/\(0 of at most 200\):\n\(none yet\)$/);
  });

  it("cuts a long first line and bounds the whole index, counting what it leaves out", () => {
    expect(firstLine("x".repeat(500))).toHaveLength(INDEX_LINE_CHARS);
    const entries = Array.from({ length: MAX_MEMORIES }, (_, i) => ({ name: `memory-${"n".repeat(50)}-${i}`, content: "y".repeat(300) }));
    const text = renderMemoryIndex(entries);
    expect(text.length).toBeLessThanOrEqual(MAX_INDEX_CHARS + 200);
    const listed = text.split("\n").filter((l) => l.startsWith("- ")).length;
    expect(listed).toBeGreaterThan(50);
    expect(listed).toBeLessThan(MAX_MEMORIES);
    expect(text).toContain(`(${MAX_MEMORIES - listed} more not listed`);
  });
});

describe("memory rules", () => {
  it("reminds from 180 on and refuses new names at 200", () => {
    expect(needsPruneReminder(PRUNE_REMINDER_FROM - 1)).toBe(false);
    expect(needsPruneReminder(PRUNE_REMINDER_FROM)).toBe(true);
    expect(isAtCap(MAX_MEMORIES - 1)).toBe(false);
    expect(isAtCap(MAX_MEMORIES)).toBe(true);
    expect(capReachedMessage("x")).toMatch(/same turn/);
  });

  it("accepts short slugs only", () => {
    for (const ok of ["a", "build-commands", "user.prefs_2", "A1", "x".repeat(64)]) expect(isValidMemoryName(ok)).toBe(true);
    for (const bad of ["", "-lead", "has space", "a/b", "x".repeat(65), "ünï"]) expect(isValidMemoryName(bad)).toBe(false);
  });
});
