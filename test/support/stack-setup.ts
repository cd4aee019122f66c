/**
 * globalSetup for every project that touches the stack: starts (or joins) the shared stack and
 * hands its addresses to the tests through `inject`.
 */
import type { TestProject } from "vitest/node";
import { acquireStack, releaseStack } from "./shared-stack";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stack = await acquireStack();
  project.provide("databaseUrl", stack.databaseUrl);
  project.provide("wsProxy", stack.wsProxy);
  project.provide("fakeModelUrl", stack.fakeModelUrl);
  return releaseStack;
}
