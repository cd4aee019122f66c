/**
 * globalSetup of the `contract` project (test/contract/): the Worker bundle its session's
 * `wrangler dev` runs. The session starts that server itself, on a database of its own
 * (test/e2e/support/deployment.ts), so the shared stack is all it needs besides.
 */
import type { TestProject } from "vitest/node";
import { sharedWorkerBundle } from "./shared-worker-bundle";

export default async function setup(project: TestProject): Promise<void> {
  project.provide("workerBundle", await sharedWorkerBundle());
}
