/**
 * One local stack for the whole test run. Several vitest projects (node, worker, e2e) each
 * declare a globalSetup that needs it; their setups run in the same Node process but may load
 * this module separately, so the stack is shared through globalThis and reference-counted.
 */
import { startStack, type Stack } from "../../scripts/lib/stack";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { TEST_DATABASE, TEST_RUNS_DIR } from "../../scripts/lib/paths";

interface Shared {
  stack: Promise<Stack>;
  users: number;
  /** This run's own Postgres folder; removed when the stack stops. */
  dataDir: string | undefined;
}

const KEY = Symbol.for("chatd-edge.test-stack");
const registry = globalThis as unknown as Record<symbol, Shared | undefined>;

export async function acquireStack(): Promise<Stack> {
  let shared = registry[KEY];
  if (!shared) {
    const databaseUrl = process.env.DATABASE_URL;
    const dataDir = databaseUrl ? undefined : newRunDir();
    shared = {
      stack: startStack({ dataDir: dataDir ?? TEST_RUNS_DIR, database: TEST_DATABASE, databaseUrl }),
      users: 0,
      dataDir,
    };
    registry[KEY] = shared;
  }
  shared.users += 1;
  try {
    return await shared.stack;
  } catch (err) {
    registry[KEY] = undefined;
    if (shared.dataDir) rmSync(shared.dataDir, { recursive: true, force: true });
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
  if (shared.dataDir) rmSync(shared.dataDir, { recursive: true, force: true });
}

function newRunDir(): string {
  mkdirSync(TEST_RUNS_DIR, { recursive: true });
  return mkdtempSync(`${TEST_RUNS_DIR}/run-`);
}
