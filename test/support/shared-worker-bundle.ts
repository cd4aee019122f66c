/**
 * The Worker bundled once per test run (scripts/lib/worker-bundle.ts), for the projects that start
 * `wrangler dev` (e2e, client), from a test entry that keeps `/__scheduled` working. Their setups
 * run in one Node process but may load this module separately, so the bundle is shared through
 * globalThis, like the stack (shared-stack.ts).
 */
import { rmSync } from "node:fs";
import { bundleWorker } from "../../scripts/lib/worker-bundle";
import { TEST_RUNS_DIR } from "../../scripts/lib/paths";

/** src/index.ts with the `/__scheduled` trigger that `wrangler dev --test-scheduled` would have added. */
const TEST_ENTRY = "test/worker/support/test-scheduled-entry.ts";
const KEY = Symbol.for("chatd-edge.test-worker-bundle");
const registry = globalThis as unknown as Record<symbol, Promise<string> | undefined>;

/** The bundle's entry file, built on the first call of the run. */
export function sharedWorkerBundle(): Promise<string> {
  let bundle = registry[KEY];
  if (!bundle) {
    // Per process: two test runs at once must not rebuild the bundle under each other's servers.
    const outDir = `${TEST_RUNS_DIR}/worker-bundle-${process.pid}`;
    bundle = bundleWorker(outDir, TEST_ENTRY);
    process.once("exit", () => rmSync(outDir, { recursive: true, force: true }));
    registry[KEY] = bundle;
    // A failed build is not cached: the next setup tries again and reports its own error.
    bundle.catch(() => {
      registry[KEY] = undefined;
    });
  }
  return bundle;
}
