/**
 * The `provider_attempt` stage: one per HTTP request to the model provider, from the request to
 * its response headers, errored for a status of 400 or more. It wraps the fetch the provider
 * client uses, so the AI SDK's own retries and every attempt of ours show up one by one.
 */
import type { StageModel } from "../observability/stage-tracing";
import type { TaskTracing } from "./task-tracing";

export function providerAttempts(trace: TaskTracing, model: StageModel, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const stage = trace.stage("provider_attempt", { model });
    try {
      const response = await base(input, init);
      stage.set({ http_status: response.status });
      stage.end(response.status >= 400 ? { error: `HTTP ${response.status}` } : {});
      return response;
    } catch (err) {
      stage.end({ error: err });
      throw err;
    }
  };
}
