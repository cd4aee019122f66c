/**
 * The fake model's gates (scripts/fake-model/gates.ts): a reply scripted `/gate <name> <ms> <text>`
 * stops after its first token until the test opens its gate, so "mid-generation" is a state a test
 * reaches, not a moment it guesses with a sleep. Works from Node and from inside workerd.
 */
import { expect, inject } from "vitest";

/** A gate name no other test uses. */
export const newGate = (prefix: string): string => `${prefix}-${crypto.randomUUID()}`;

/** Lets every reply waiting at `gate` go on. */
export async function openGate(gate: string): Promise<void> {
  const res = await fetch(`${inject("fakeModelUrl")}/_gates/${gate}`, { method: "POST" });
  expect(res.status, "the fake model's gate opened").toBe(200);
}
