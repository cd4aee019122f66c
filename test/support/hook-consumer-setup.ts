/**
 * globalSetup of the `hooks` project: starts the test hook consumer (test/support/hook-consumer.ts)
 * that the project's workerd points CHAT_HOOK_URL at, and hands its address to the tests.
 */
import type { TestProject } from "vitest/node";
import { startHookConsumer } from "./hook-consumer";

/** The hooks project's CHAT_HOOK_SECRET (vitest.config.ts); the consumer checks signatures with it. */
export const TEST_HOOK_SECRET = "test-hook-secret-0123456789";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const consumer = await startHookConsumer(TEST_HOOK_SECRET);
  project.provide("hookConsumerUrl", consumer.url);
  return () => consumer.close();
}
