/**
 * StageTracing, the spec's chatloop.StageTracer: a stage is one span and, for the stages the
 * histogram observes, one observation, both produced by the same `end()` so trace and metric
 * durations cannot disagree.
 * Spans go to a sink (the OTLP exporter) only when one is configured; listeners (the turn log)
 * see every ended stage. Without a sink a stage costs a small record and its metric observation.
 */
import { errorText } from "../log/log";
import { MODEL_STAGE_DURATION, type Metrics, STAGE_DURATION, TTFT } from "./metrics";
import { type Attributes, newSpanId, newTraceId, type SpanContext, type SpanRecord } from "./span";

export const STAGE_NAMES = [
  "chat_turn",
  "acquisition",
  "queue_wait",
  "generation_step",
  "prepare",
  "mcp_connect",
  "provider_attempt",
  "stream",
  "time_to_first_token",
  "retry_backoff",
  "tool_call",
  "commit",
  "compaction",
  "thinking",
] as const;
export type StageName = (typeof STAGE_NAMES)[number];

/** "The histogram observes ..."; generation_step, prepare, thinking and compaction are span-only. */
const OBSERVED: ReadonlySet<StageName> = new Set([
  "chat_turn",
  "queue_wait",
  "acquisition",
  "mcp_connect",
  "stream",
  "time_to_first_token",
  "provider_attempt",
  "tool_call",
  "commit",
  "retry_backoff",
]);
/** The provider's work on a model, observed a second time with the model (turn scope only). */
const MODEL_FAMILY: ReadonlySet<StageName> = new Set(["stream", "provider_attempt"]);

export type StageScope = "turn" | "background";
/** Empty for a stage recorded without a known chat. */
export type ChatKind = "root" | "subagent" | "";

export interface StageIdentity {
  scope: StageScope;
  chatKind: ChatKind;
}

/** Stamped on the stages that run on a resolved model. */
export interface StageModel {
  /** The wire protocol the client speaks. */
  provider: string;
  /** The configured type of the provider row. */
  providerType: string;
  model: string;
  reasoningEffort: string | null;
}

export interface SpanSink {
  span(record: SpanRecord): void;
}

export interface StartOptions {
  identity: StageIdentity;
  /** Null: a trace root. */
  parent?: SpanContext | null;
  model?: StageModel | null;
  attributes?: Attributes;
  /** Backdated starts (acquisition, queue_wait, thinking); now by default. */
  startMs?: number;
}

export interface EndOptions {
  /** A real failure: the span's status is error. */
  error?: unknown;
  /** False: span only (a failed time_to_first_token window, a chat_turn that did not complete). */
  observe?: boolean;
  endMs?: number;
}

export class StageTracing {
  readonly #listeners: ((record: SpanRecord) => void)[] = [];

  constructor(
    private readonly sink: SpanSink | null,
    readonly metrics: Metrics,
    readonly now: () => number = Date.now,
  ) {}

  /** Every ended stage to `listener` until the returned function is called. */
  onSpan(listener: (record: SpanRecord) => void): () => void {
    this.#listeners.push(listener);
    return () => {
      const i = this.#listeners.indexOf(listener);
      if (i !== -1) this.#listeners.splice(i, 1);
    };
  }

  start(name: StageName, options: StartOptions): Stage {
    return new Stage(this, name, options);
  }

  /** Called by Stage.end: the span to its readers, the duration to the histograms. */
  finish(stage: Stage, record: SpanRecord, observe: boolean): void {
    if (this.sink) this.sink.span(record);
    for (const listener of this.#listeners) listener(record);
    if (!observe || !OBSERVED.has(stage.name)) return;
    const seconds = Math.max(0, record.endMs - record.startMs) / 1000;
    const { scope, chatKind } = stage.identity;
    this.metrics.observe(STAGE_DURATION, { stage: stage.name, scope, chat_kind: chatKind }, seconds);
    const model = stage.model;
    if (model === null || scope !== "turn") return;
    const labels = { provider_type: model.providerType, chat_kind: chatKind, model: model.model };
    if (MODEL_FAMILY.has(stage.name)) this.metrics.observe(MODEL_STAGE_DURATION, { stage: stage.name, ...labels }, seconds);
    if (stage.name === "time_to_first_token") this.metrics.observe(TTFT, labels, seconds);
  }
}

export class Stage {
  readonly spanId = newSpanId();
  readonly startMs: number;
  readonly identity: StageIdentity;
  #traceId: string;
  #parentSpanId: string | null;
  #model: StageModel | null;
  #attributes: Attributes;
  #ended = false;

  constructor(
    private readonly tracer: StageTracing,
    readonly name: StageName,
    options: StartOptions,
  ) {
    this.identity = options.identity;
    this.startMs = options.startMs ?? tracer.now();
    this.#traceId = options.parent?.traceId ?? newTraceId();
    this.#parentSpanId = options.parent?.spanId ?? null;
    this.#model = options.model ?? null;
    this.#attributes = { ...options.attributes };
  }

  get traceId(): string {
    return this.#traceId;
  }

  get context(): SpanContext {
    return { traceId: this.#traceId, spanId: this.spanId };
  }

  get model(): StageModel | null {
    return this.#model;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** A stage started before its turn was known (generation_step loads the state that names it). */
  adopt(parent: SpanContext | null): void {
    if (parent === null || this.#ended) return;
    this.#traceId = parent.traceId;
    this.#parentSpanId = parent.spanId;
  }

  set(attributes: Attributes): void {
    Object.assign(this.#attributes, attributes);
  }

  setModel(model: StageModel | null): void {
    this.#model = model;
  }

  /** Ends the stage once; later calls do nothing. */
  end(options: EndOptions = {}): void {
    if (this.#ended) return;
    this.#ended = true;
    const endMs = options.endMs ?? this.tracer.now();
    const error = options.error === undefined || options.error === null ? null : errorText(options.error);
    const attributes: Attributes = { ...this.#attributes, scope: this.identity.scope, chat_kind: this.identity.chatKind };
    if (this.#model) {
      attributes.provider = this.#model.provider;
      attributes.provider_type = this.#model.providerType;
      attributes.model = this.#model.model;
      if (this.#model.reasoningEffort !== null) attributes.reasoning_effort = this.#model.reasoningEffort;
    }
    const record: SpanRecord = {
      traceId: this.#traceId,
      spanId: this.spanId,
      parentSpanId: this.#parentSpanId,
      name: this.name,
      startMs: this.startMs,
      endMs,
      attributes,
      error,
    };
    this.tracer.finish(this, record, options.observe ?? true);
  }
}
