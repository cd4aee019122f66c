/**
 * The stages of one provider stream: `stream` (opening the request to its last part),
 * `time_to_first_token` inside it (to the first output part; a warning does not close it, and a
 * window never closed by an output part is not observed), and one reconstructed `thinking` per
 * run of reasoning parts.
 */
import type { StreamPart } from "../wire/stream-part";
import type { Stage, StageModel } from "../observability/stage-tracing";
import type { TaskContext } from "./task-context";

export class StreamStages {
  readonly stage: Stage;
  readonly #ttft: Stage;
  #thinkingFrom: number | null = null;

  constructor(
    private readonly ctx: TaskContext,
    private readonly model: StageModel,
  ) {
    this.stage = ctx.trace.stage("stream", { model });
    this.#ttft = ctx.trace.stage("time_to_first_token", { model, parent: this.stage });
  }

  part(part: StreamPart): void {
    if (part.type === "warning") return;
    if (!this.#ttft.ended) this.#ttft.end();
    const now = this.ctx.trace.tracer.now();
    if (part.type === "reasoning") this.#thinkingFrom ??= now;
    else this.#endThinking(now);
  }

  /** The stream is over (`error`: it failed); the stream stage itself is ended by its caller. */
  close(error?: unknown): void {
    if (!this.#ttft.ended) this.#ttft.end({ observe: false, ...(error === undefined ? {} : { error }) });
    this.#endThinking(this.ctx.trace.tracer.now());
  }

  #endThinking(now: number): void {
    if (this.#thinkingFrom === null) return;
    this.ctx.trace.stage("thinking", { model: this.model, parent: this.stage, startMs: this.#thinkingFrom }).end({ endMs: now });
    this.#thinkingFrom = null;
  }
}
