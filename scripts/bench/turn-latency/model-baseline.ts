/**
 * Baseline A: the fake model's raw stream for a prompt, called from Node with the same AI SDK
 * provider and streamText settings the service's generation step uses (src/llm/step.ts), so the
 * difference to a service turn is the service, not a different client.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { stepCountIs, streamText } from "ai";

export interface ModelStreamTiming {
  /** Call → first text delta. */
  ttftMs: number;
  /** Call → the stream's end (finish part read, stream closed). */
  totalMs: number;
  textDeltas: number;
  text: string;
}

export async function measureModelStream(opts: { fakeModelUrl: string; prompt: string; timeoutMs: number }): Promise<ModelStreamTiming> {
  const model = createOpenAICompatible({ name: "fake", baseURL: `${opts.fakeModelUrl}/v1`, apiKey: "x", includeUsage: true })("fake");
  const started = performance.now();
  let firstDeltaAt: number | undefined;
  let text = "";
  let textDeltas = 0;
  let failure: unknown;
  const result = streamText({
    model,
    messages: [{ role: "user", content: opts.prompt }],
    maxRetries: 0,
    stopWhen: stepCountIs(1),
    abortSignal: AbortSignal.timeout(opts.timeoutMs),
    onError: () => {},
  });
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") {
      firstDeltaAt ??= performance.now();
      text += part.text;
      textDeltas += 1;
    } else if (part.type === "error" || part.type === "abort") {
      failure = part.type === "error" ? part.error : new Error(`model stream aborted after ${opts.timeoutMs} ms`);
      break;
    }
  }
  const ended = performance.now();
  if (failure !== undefined)
    throw new Error(`baseline model stream failed: ${failure instanceof Error ? failure.message : String(failure)}`);
  if (firstDeltaAt === undefined) throw new Error("baseline model stream sent no text");
  return { ttftMs: firstDeltaAt - started, totalMs: ended - started, textDeltas, text };
}
