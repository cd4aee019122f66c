/**
 * Backpressure on a fast model's stream, so that its parts reach the sockets while it streams.
 *
 * The AI SDK's streamText drains the provider's stream as fast as it arrives: its tool-call stage
 * pipes the provider's parts into a queue that never pushes back. When a fast model's bytes are
 * already buffered, every read resolves at once, and the provider's parsing (SSE, JSON, schema
 * validation: ~0.2 ms a chunk in workerd) runs chunk after chunk on promise continuations. A timer
 * cannot fire in between. The relay waits at least one timer turn before it sends a burst, so at
 * 200 sockets and 5,000 chunks the first part went out about a second after the model's first
 * token: only once the whole response had been parsed. The step's own consumer sat behind that
 * queue too, so it could not fix this by yielding. (workerd 1.20261117 runs a timer turn between
 * two reads of a buffered body by itself; the pauses keep the bound wherever that is not so, Node
 * among them.)
 *
 * The model is wrapped so that its stream pauses for one macrotask every DELTAS_PER_PAUSE deltas
 * (text, reasoning or tool-input; sooner at the start). The SDK then reads ahead of the sockets by
 * one batch at most. The count is in deltas, not time: in workerd the clock does not move while
 * JavaScript runs. Other chunks (metadata, block starts and ends, the finish) pass without a pause,
 * so the first delta goes through in the same task as the bytes that carried it, and reaches the
 * part buffer even when the connection is reset right after it (the kernel drops what was received
 * but not yet read).
 */
import { wrapLanguageModel } from "ai";
import { nextTask } from "../next-task";
import type { ChatLanguageModel } from "./provider";

/** Deltas between two pauses. 4 was measured worse (more, smaller frames, more CPU); see docs/bench.md. */
export const DELTAS_PER_PAUSE = 16;

export interface PacingOptions {
  deltasPerPause?: number | undefined;
  /** How the stream pauses (default nextTask); tests observe the pauses through it. */
  yieldToEventLoop?: (() => Promise<void>) | undefined;
}

/**
 * The same model, its streams paced. Models of the oldest specification (v2) are returned as they
 * are: the SDK adapts them itself. The providers built here are all v4; wrapLanguageModel adapts
 * a v3 model (the tests' mocks) and returns a v4 one.
 */
export function pacedModel(model: ChatLanguageModel, options: PacingOptions = {}): ChatLanguageModel {
  if (model.specificationVersion === "v2") return model;
  const every = options.deltasPerPause ?? DELTAS_PER_PAUSE;
  const pause = options.yieldToEventLoop ?? nextTask;
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: "v4",
      wrapStream: async ({ doStream }) => {
        const result = await doStream();
        return { ...result, stream: result.stream.pipeThrough(pauseEvery(every, pause)) };
      },
    },
  });
}

/**
 * Pauses after 1, 2, 4, ... deltas, then every `every`: the first parts (the first token among
 * them) go out before a whole batch is parsed, and a long stream pays one pause per batch.
 */
function pauseEvery<T extends { type: string }>(every: number, pause: () => Promise<void>): TransformStream<T, T> {
  let batch = 1;
  let sincePause = 0;
  return new TransformStream<T, T>({
    async transform(chunk, controller) {
      controller.enqueue(chunk);
      if (!chunk.type.endsWith("-delta") || ++sincePause < batch) return;
      sincePause = 0;
      batch = Math.min(batch * 2, every);
      await pause();
    },
  });
}
