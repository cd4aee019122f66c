/**
 * OTLP/HTTP (JSON encoding) export of spans and metric deltas from a Durable Object: spans are
 * buffered (at most MAX_BUFFERED; past that the oldest are dropped and counted), and `flush()` posts
 * whatever is buffered, which the object runs under `waitUntil` after a turn, never on the hot path.
 * A collector that is down costs one failed request per flush and at most the bounded buffer.
 *
 * Written against the OTLP wire format directly rather than the OpenTelemetry JS SDK: the SDK's
 * batching relies on timers and process hooks that a Durable Object does not keep, and the format
 * is a few plain JSON shapes.
 */
import { errorText, logger } from "../log/log";
import { DURATION_BUCKETS, type MetricPoint, type Metrics } from "./metrics";
import type { AttributeValue, SpanRecord } from "./span";
import type { SpanSink } from "./stage-tracing";

export const MAX_BUFFERED = 2_048;
const SERVICE_NAME = "chatd-edge";
const SCOPE = { name: "chatd" };

export interface OtlpExporterOptions {
  /** The collector's base URL; `/v1/traces` and `/v1/metrics` are appended. */
  endpoint: string;
  headers: Record<string, string>;
  metrics: Metrics;
  fetch?: typeof fetch;
}

export class OtlpExporter implements SpanSink {
  #spans: SpanRecord[] = [];
  #dropped = 0;
  #flushing: Promise<void> | null = null;
  /** The post that follows the one in flight, for spans buffered after it began. */
  #next: Promise<void> | null = null;

  constructor(private readonly options: OtlpExporterOptions) {}

  span(record: SpanRecord): void {
    if (this.#spans.length >= MAX_BUFFERED) {
      this.#spans.shift();
      this.#dropped++;
    }
    this.#spans.push(record);
  }

  /** Spans dropped because the buffer was full (the collector slow or down). */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Posts what is buffered, one post at a time. A call while a post is in flight gets one more
   * post after it (shared by every call made meanwhile): the spans buffered since that post began,
   * such as a title's right after its turn's, are not left waiting for some later flush.
   */
  flush(): Promise<void> {
    if (this.#flushing) {
      this.#next ??= this.#flushing.then(() => {
        this.#next = null;
        return this.flush();
      });
      return this.#next;
    }
    this.#flushing = this.#post().finally(() => {
      this.#flushing = null;
    });
    return this.#flushing;
  }

  async #post(): Promise<void> {
    const spans = this.#spans;
    this.#spans = [];
    const window = this.options.metrics.drain();
    const doFetch = this.options.fetch ?? fetch;
    const post = (path: string, body: unknown) =>
      doFetch(new URL(path, this.options.endpoint.endsWith("/") ? this.options.endpoint : `${this.options.endpoint}/`), {
        method: "POST",
        headers: { "content-type": "application/json", ...this.options.headers },
        body: JSON.stringify(body),
      }).then(async (res) => {
        await res.body?.cancel();
        if (!res.ok) throw new Error(`collector answered ${res.status}`);
      });
    const sends: Promise<void>[] = [];
    if (spans.length > 0) sends.push(post("v1/traces", tracesBody(spans)));
    if (window.points.length > 0) sends.push(post("v1/metrics", metricsBody(window)));
    const results = await Promise.allSettled(sends);
    for (const r of results) {
      // Dropped, not retried: the buffer stays bounded and the next turn's flush carries new data.
      if (r.status === "rejected") logger.warn("otlp_export_failed", { error: errorText(r.reason), spans: spans.length });
    }
  }
}

const nanos = (ms: number) => `${BigInt(Math.round(ms * 1000)) * 1000n}`;

function attribute(key: string, value: AttributeValue) {
  if (typeof value === "boolean") return { key, value: { boolValue: value } };
  if (typeof value === "number") return { key, value: Number.isInteger(value) ? { intValue: `${value}` } : { doubleValue: value } };
  return { key, value: { stringValue: value } };
}

const resource = { attributes: [attribute("service.name", SERVICE_NAME)] };

export function tracesBody(spans: readonly SpanRecord[]) {
  return {
    resourceSpans: [
      {
        resource,
        scopeSpans: [
          {
            scope: SCOPE,
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: 1,
              startTimeUnixNano: nanos(s.startMs),
              endTimeUnixNano: nanos(s.endMs),
              attributes: Object.entries(s.attributes).map(([k, v]) => attribute(k, v)),
              // Unset unless a real failure: 2 is ERROR.
              status: s.error === null ? {} : { code: 2, message: s.error },
            })),
          },
        ],
      },
    ],
  };
}

export function metricsBody(window: { startMs: number; endMs: number; points: readonly MetricPoint[] }) {
  const byName = new Map<string, MetricPoint[]>();
  for (const p of window.points) byName.set(p.name, [...(byName.get(p.name) ?? []), p]);
  const times = { startTimeUnixNano: nanos(window.startMs), timeUnixNano: nanos(window.endMs) };
  const DELTA = 1;
  return {
    resourceMetrics: [
      {
        resource,
        scopeMetrics: [
          {
            scope: SCOPE,
            metrics: [...byName].map(([name, points]) => {
              const attributes = (p: MetricPoint) => Object.entries(p.labels).map(([k, v]) => attribute(k, v));
              if (points[0]?.kind === "counter") {
                return {
                  name,
                  sum: {
                    aggregationTemporality: DELTA,
                    isMonotonic: true,
                    dataPoints: points.map((p) => ({
                      ...times,
                      attributes: attributes(p),
                      asInt: `${p.kind === "counter" ? p.value : 0}`,
                    })),
                  },
                };
              }
              return {
                name,
                unit: "s",
                histogram: {
                  aggregationTemporality: DELTA,
                  dataPoints: points.map((p) =>
                    p.kind === "histogram"
                      ? {
                          ...times,
                          attributes: attributes(p),
                          count: `${p.count}`,
                          sum: p.sum,
                          bucketCounts: p.buckets.map((b) => `${b}`),
                          explicitBounds: [...DURATION_BUCKETS],
                        }
                      : { ...times, attributes: attributes(p) },
                  ),
                },
              };
            }),
          },
        ],
      },
    ],
  };
}
