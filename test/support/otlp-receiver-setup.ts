/**
 * globalSetup of the `runner` project: the OTLP/HTTP receiver its workerd exports turn spans and
 * stage metrics to (OTEL_EXPORTER_OTLP_ENDPOINT), its address handed to the tests.
 */
import type { TestProject } from "vitest/node";
import { startOtlpReceiver } from "../../scripts/lib/otlp-receiver";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const receiver = await startOtlpReceiver();
  project.provide("otlpReceiverUrl", receiver.url);
  return () => receiver.close();
}
