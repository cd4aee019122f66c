/**
 * Tracing as one chat object holds it: the stage metrics, the tracer, the OTLP exporter when an
 * endpoint is configured, and the chat's turn log. An emitted turn is written to the log and
 * flushed to the collector in the background (`waitUntil`), never on the request or stream path.
 */
import type { Config } from "../config/env";
import { errorText, logger } from "../log/log";
import { Metrics } from "./metrics";
import { OtlpExporter } from "./otlp-exporter";
import { StageTracing } from "./stage-tracing";
import { TurnLog, type TurnStorage } from "./turn-log";
import type { TurnSummary } from "./turn-tracing";

export class ObjectTracing {
  readonly metrics = new Metrics();
  readonly tracer: StageTracing;
  readonly exporter: OtlpExporter | null;
  readonly #log: TurnLog;

  constructor(
    config: Pick<Config, "OTEL_EXPORTER_OTLP_ENDPOINT" | "OTEL_EXPORTER_OTLP_HEADERS">,
    storage: TurnStorage,
    private readonly background: (work: Promise<unknown>) => void,
  ) {
    this.exporter =
      config.OTEL_EXPORTER_OTLP_ENDPOINT === ""
        ? null
        : new OtlpExporter({
            endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
            headers: config.OTEL_EXPORTER_OTLP_HEADERS,
            metrics: this.metrics,
          });
    this.tracer = new StageTracing(this.exporter, this.metrics);
    this.#log = new TurnLog(storage);
  }

  turnEmitted(turn: TurnSummary): void {
    logger.debug("turn_emitted", { trace_id: turn.trace_id, outcome: turn.outcome, duration_ms: turn.duration_ms });
    this.background(this.#log.append(turn).catch((err: unknown) => logger.warn("turn_log_failed", { error: errorText(err) })));
    this.flush();
  }

  /** queue_wait of a message a chat command promoted (the runner records the ones it promotes). */
  queueWait(queuedAt: Date, chat: { id: string; parentChatId: string | null }): void {
    const identity = { scope: "turn" as const, chatKind: chat.parentChatId === null ? ("root" as const) : ("subagent" as const) };
    this.tracer.start("queue_wait", { identity, startMs: queuedAt.getTime(), attributes: { chat_id: chat.id } }).end();
  }

  /** Sends what is buffered (after a turn, and for background work such as titles). */
  flush(): void {
    if (this.exporter) this.background(this.exporter.flush());
  }

  latestTurns(limit: number): Promise<TurnSummary[]> {
    return this.#log.latest(limit);
  }
}
