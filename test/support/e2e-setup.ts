/**
 * globalSetup of the e2e project: a real `wrangler dev` against the shared stack.
 */
import type { TestProject } from "vitest/node";
import { acquireStack, releaseStack } from "./shared-stack";
import { sharedWorkerBundle } from "./shared-worker-bundle";
import { startWranglerDev } from "../../scripts/lib/wrangler-dev";
import { DATA_DIR } from "../../scripts/lib/paths";
import { localWorkerVars } from "../../scripts/lib/worker-vars";
import { FAIR_USE_OFF } from "./fair-use-off";

const E2E_LOG_FILE = `${DATA_DIR}/wrangler-e2e.log`;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stack = await acquireStack();
  try {
    const bundle = await sharedWorkerBundle();
    const dev = await startWranglerDev({
      bundle,
      // The API alone: the endpoint tests need chats to stay where each request leaves them.
      vars: localWorkerVars(stack, { CHAT_WORKER_ENABLED: "false", ...FAIR_USE_OFF }),
      persistTo: `${DATA_DIR}/wrangler-test`,
      snapshotAssets: true,
      logFile: E2E_LOG_FILE,
    });
    project.provide("baseUrl", dev.url);
    project.provide("workerBundle", bundle);
    project.provide("e2eLogFile", E2E_LOG_FILE);
    return async () => {
      await dev.stop();
      await releaseStack();
    };
  } catch (err) {
    // A throwing globalSetup gets no teardown: release here or the stack outlives the run.
    await releaseStack();
    throw err;
  }
}
