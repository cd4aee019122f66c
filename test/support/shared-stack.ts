/**
 * One local stack for the whole test run. Several vitest projects (node, worker, e2e) each
 * declare a globalSetup that needs it; their setups run in the same Node process but may load
 * this module separately, so the stack is shared through globalThis and reference-counted.
 */
import { startStack, type Stack } from "../../scripts/lib/stack";
import { TEST_DATA_DIR, TEST_DATABASE } from "../../scripts/lib/paths";

interface Shared {
  stack: Promise<Stack>;
  users: number;
}

const KEY = Symbol.for("chatd-edge.test-stack");
const registry = globalThis as unknown as Record<symbol, Shared | undefined>;

export async function acquireStack(): Promise<Stack> {
  let shared = registry[KEY];
  if (!shared) {
    const databaseUrl = process.env.DATABASE_URL;
    shared = {
      stack: startStack({ dataDir: TEST_DATA_DIR, database: TEST_DATABASE, databaseUrl, freshDatabase: !databaseUrl }),
      users: 0,
    };
    registry[KEY] = shared;
  }
  shared.users += 1;
  try {
    return await shared.stack;
  } catch (err) {
    registry[KEY] = undefined;
    throw err;
  }
}

export async function releaseStack(): Promise<void> {
  const shared = registry[KEY];
  if (!shared) return;
  shared.users -= 1;
  if (shared.users > 0) return;
  registry[KEY] = undefined;
  await (await shared.stack).stop();
}
