/** The runner's per-turn decision (spec "Local state"): decided once per turn, never replaced by an older turn. */
import { describe, expect, it } from "vitest";
import { RunnerTurnDecisions } from "../../../src/chat-worker/turn-decisions";

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("RunnerTurnDecisions", () => {
  it("the first step of a turn reads the rule; later steps reuse it even when the rule changed", async () => {
    const d = new RunnerTurnDecisions();
    let rule = true;
    const read = async () => rule;
    expect(await d.mcpToolSearch(7, read)).toBe(true);
    rule = false;
    expect(await d.mcpToolSearch(7, read)).toBe(true);
    expect(d.reads).toBe(1);
    // The next turn reads again.
    expect(await d.mcpToolSearch(9, read)).toBe(false);
    expect(d.reads).toBe(2);
  });

  it("steps racing on the same turn share one read", async () => {
    const d = new RunnerTurnDecisions();
    const gate = deferred<boolean>();
    const a = d.mcpToolSearch(3, () => gate.promise);
    const b = d.mcpToolSearch(3, () => Promise.resolve(false));
    gate.resolve(true);
    expect([await a, await b]).toEqual([true, true]);
    expect(d.reads).toBe(1);
  });

  it("a late step of an older turn never replaces the newer decision", async () => {
    const d = new RunnerTurnDecisions();
    expect(await d.mcpToolSearch(10, async () => true)).toBe(true);
    expect(await d.mcpToolSearch(4, async () => false)).toBe(false);
    expect(await d.mcpToolSearch(10, async () => false)).toBe(true);
  });

  it("does not cache a turn without a prompt row, nor a read that failed", async () => {
    const d = new RunnerTurnDecisions();
    expect(await d.mcpToolSearch(-1, async () => true)).toBe(true);
    expect(await d.mcpToolSearch(-1, async () => false)).toBe(false);
    await expect(d.mcpToolSearch(5, async () => Promise.reject(new Error("db down")))).rejects.toThrow("db down");
    expect(await d.mcpToolSearch(5, async () => true)).toBe(true);
  });
});
